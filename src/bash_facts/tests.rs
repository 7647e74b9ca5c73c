use super::*;

fn facts(c: &str) -> BashFacts {
    analyze(c)
}

#[test]
fn dump_for_inspection() {
    if std::env::var("DUMP").is_err() {
        return;
    }
    for c in std::env::var("DUMP").unwrap().split("\n---\n") {
        println!("{c}\n  => {}", facts(c).to_json());
    }
}
