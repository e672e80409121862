#![no_main]
libfuzzer_sys::fuzz_target!(|plan: planlens_fuzz::generate::GenPlan| {
    planlens_fuzz::targets::structured(&plan.case())
});
