#[racer::test(unhandled_panic = "shutdown_runtime")]
async fn needs_tokio_unstable() {}

fn main() {}
