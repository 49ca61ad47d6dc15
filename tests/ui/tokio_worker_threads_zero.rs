#[racer::test(flavor = "multi_thread", worker_threads = 0)]
async fn tokio_worker_threads_zero() {}

fn main() {}
