#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| planlens_fuzz::targets::diff(data));
