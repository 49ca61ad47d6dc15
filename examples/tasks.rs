//! Two tokio tasks and one cell: the order task writes the stock while the audit task reads
//! it, with nothing between them. On a current-thread runtime the two run one after the other,
//! yet nothing orders them (on a multi-thread runtime they would run at once): racer reports it.
//!
//!     cargo run -p racer-examples --example tasks --features race-detect,tokio

use std::sync::Arc;

use racer::Shared;

struct Shop {
    stock: Shared<u64>,
}

async fn take_order(shop: Arc<Shop>) {
    unsafe { shop.stock.set(shop.stock.get() - 1) };
}

async fn audit(shop: Arc<Shop>) -> u64 {
    unsafe { shop.stock.get() }
}

fn main() {
    let runtime = racer::tokio::runtime::Builder::new_current_thread().build().unwrap();
    runtime.block_on(async {
        let shop = Arc::new(Shop { stock: Shared::new(10) });
        let order = racer::tokio::spawn(take_order(shop.clone()));
        let counted = racer::tokio::spawn(audit(shop.clone()));
        order.await.unwrap();
        println!("audited stock: {}", counted.await.unwrap());
    });
}
