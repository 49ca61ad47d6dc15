#[racer::test(flavor = "multi_thread", start_paused = true)]
async fn tokio_start_paused_on_multi_thread() {}

fn main() {}
