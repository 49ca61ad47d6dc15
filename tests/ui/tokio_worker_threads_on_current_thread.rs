#[racer::test(worker_threads = 2)]
async fn tokio_worker_threads_on_current_thread() {}

fn main() {}
