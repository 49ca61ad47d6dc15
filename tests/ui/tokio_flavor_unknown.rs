#[racer::test(flavor = "single_thread")]
async fn tokio_flavor_unknown() {}

fn main() {}
