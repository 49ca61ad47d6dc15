#[racer::test]
fn takes_arguments(n: u32, name: &str) {
    assert!(n > 0 && !name.is_empty());
}

fn main() {}
