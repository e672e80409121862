#![no_main]
libfuzzer_sys::fuzz_target!(|plan: planlens_fuzz::generate::GenPlan| {
    let case = plan.case();
    // `PLANLENS_FUZZ_CASE=FILE structured INPUT` writes the case an input makes, for
    // tests/fuzz_regressions/structured/ (the stable replay reads cases, not raw bytes).
    if let Some(path) = std::env::var_os("PLANLENS_FUZZ_CASE") {
        let json = serde_json::to_string_pretty(&case).expect("a case writes");
        std::fs::write(path, json).expect("write the case");
    }
    planlens_fuzz::targets::structured(&case)
});
