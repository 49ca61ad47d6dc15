#[racer::test(crate = "not a path")]
async fn tokio_crate_not_a_path() {}

fn main() {}
