#[racer::test]
struct NotAFunction {
    field: u32,
}

fn main() {
    let _ = NotAFunction { field: 1 }.field;
}
