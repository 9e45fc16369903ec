#[test]
fn dump() {
    let m = tpb_oracle::fixture::Fixture::moved().build().unwrap();
    std::fs::write("/tmp/moved.so", &m).unwrap();
    let k = tpb_oracle::fixture::Fixture::known().unwrap().build().unwrap();
    std::fs::write("/tmp/known.so", &k).unwrap();
}
