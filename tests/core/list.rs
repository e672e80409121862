//! The resource list over real plans: every row under a module heading reads its address relative
//! to that module, and the heading plus the row is exactly the address Terraform wrote.

use crate::common;

use planlens::Document;
use planlens::list::{ListEntry, ListFilter, address_in_group};
use planlens::model::Address;

/// Checks every row of `doc`: under a module heading the row's text is the address without the
/// module path (a resource address of the module itself), and `heading.text` is the full address.
/// Returns how many rows were in a module.
fn check_rows(doc: &Document, name: &str) -> usize {
    let mut in_module = 0;
    for row in &doc.rows {
        let address = &*doc.change(row).address;
        let module = doc.module_of(row);
        let shown = address_in_group(doc, row);
        if module.is_empty() {
            assert_eq!(shown, address, "{name}: a root row reads as its address");
            continue;
        }
        in_module += 1;
        assert_eq!(
            format!("{module}.{shown}"),
            address,
            "{name}: heading and row must make the address"
        );
        let parsed = Address::parse(shown)
            .unwrap_or_else(|e| panic!("{name}: {address} shows {shown:?}, not an address: {e}"));
        assert!(
            parsed.module.is_empty(),
            "{name}: {address} shows {shown:?}, still with a module"
        );
    }
    in_module
}

#[test]
fn rows_in_modules_read_relative_to_their_heading_in_every_real_plan() {
    let mut in_module = 0;
    for path in common::real_fixture_paths() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let doc = planlens::load_plan(std::fs::read(&path).unwrap(), &name)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        in_module += check_rows(&doc, &name);
    }
    if common::real_fixtures_dir().is_some() {
        assert!(
            in_module > 50,
            "the corpus has many module rows: {in_module}"
        );
    }
}

#[test]
fn nested_modules_show_type_name_and_key_under_their_heading() {
    let Some(dir) = common::real_fixtures_dir() else {
        return;
    };
    let name = "infracost__terraform_v0_12_plan.json";
    let doc = planlens::load_plan(std::fs::read(dir.join(name)).unwrap(), name).unwrap();
    check_rows(&doc, name);
    let entries = ListFilter::default().entries(&doc);
    // The row follows its module's heading and reads as type.name[key].
    let at = entries
        .iter()
        .position(|e| {
            matches!(e, ListEntry::Resource(r)
            if doc.change(&doc.rows[*r as usize]).address
                == "module.db.module.db_1.module.db_instance.aws_db_instance.this[0]")
        })
        .expect("the DB instance is listed");
    let ListEntry::Resource(r) = entries[at] else {
        unreachable!()
    };
    assert_eq!(
        address_in_group(&doc, &doc.rows[r as usize]),
        "aws_db_instance.this[0]"
    );
    let heading = entries[..at]
        .iter()
        .rev()
        .find_map(|e| match e {
            ListEntry::Module { module, .. } => Some(&doc.modules[*module as usize]),
            ListEntry::Resource(_) => None,
        })
        .unwrap();
    assert_eq!(heading, "module.db.module.db_1.module.db_instance");
}

#[test]
fn keys_with_dots_brackets_and_quotes_stay_whole() {
    let doc = common::load_own("tricky_keys.json");
    check_rows(&doc, "tricky_keys.json");
    let shown: Vec<&str> = doc
        .rows
        .iter()
        .filter(|r| !doc.module_of(r).is_empty())
        .map(|r| address_in_group(&doc, r))
        .collect();
    for expected in [
        "aws_security_group.this",
        "aws_instance.y[3]",
        "aws_iam_role.r",
    ] {
        assert!(shown.contains(&expected), "{expected} in {shown:?}");
    }
}
