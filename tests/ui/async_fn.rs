#[racer::test(model, flavor = "multi_thread")]
async fn asynchronous() {
    assert_eq!(1 + 1, 2);
}

fn main() {}
