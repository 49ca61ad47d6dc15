#[racer::test(foo)]
fn with_attribute_arguments() {
    assert_eq!(1 + 1, 2);
}

fn main() {}
