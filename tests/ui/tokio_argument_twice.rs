#[racer::test(name = "a", name = "b")]
async fn tokio_argument_twice() {}

fn main() {}
