#[racer::test(unhandled_panic = "abort")]
async fn tokio_unhandled_panic_unknown() {}

fn main() {}
