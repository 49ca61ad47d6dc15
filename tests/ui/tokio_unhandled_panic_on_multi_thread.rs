#[racer::test(flavor = "multi_thread", unhandled_panic = "ignore")]
async fn tokio_unhandled_panic_on_multi_thread() {}

fn main() {}
