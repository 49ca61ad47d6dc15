#[racer::test(flavor)]
async fn tokio_argument_without_value() {}

fn main() {}
