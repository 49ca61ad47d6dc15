#[racer::test]
fn generic<T: Default>() {
    let _ = T::default();
}

fn main() {}
