//! `planlens drift`: the note and one line per drifted resource, as text and JSON, and never "No
//! drift" where the plan could not show it.

use crate::run::planlens_line;

#[test]
fn drift_prints_the_note_and_one_line_per_resource() {
    let (code, out, err) = planlens_line("drift tests/fixtures/drift_effects.json");
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "Note: 4 resources have changed outside of Terraform.\n\
         structural aws_db_instance.main (password) — The plan reverts this drift.\n\
         structural aws_instance.web (instance_type, tags.Owner) — The plan reverts part of this drift.\n\
         minor      aws_s3_bucket.logs (tags.CostCenter, tags_all.CostCenter) — The plan reverts this drift.\n\
         minor      google_compute_instance.vm (labels.env) — The plan does not change this resource.\n\
         2 structural, 2 minor\n"
    );
    assert!(!out.contains("hunter2"));

    let (code, out, _) = planlens_line("drift tests/fixtures/drift_effects.json --format json");
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["minor"].as_u64(), v["structural"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(v["drifted"][1]["address"], "aws_instance.web");
    assert_eq!(v["drifted"][1]["severity"], "structural");
    assert_eq!(
        v["drifted"][1]["attributes"],
        serde_json::json!(["instance_type", "tags.Owner"])
    );
    assert!(v.get("unmanaged").is_none());

    let (code, out, _) = planlens_line("drift --format json tests/fixtures/driftctl.json");
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["unmanaged"].as_u64(), v["missing"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(v["drifted"][0]["severity"], "structural");

    let (_, out, _) = planlens_line("drift tests/fixtures/driftctl.json");
    assert!(
        out.starts_with(
            "driftctl: 5 resources, 2 managed, 2 unmanaged, 1 missing, 1 changed; coverage 40 %."
        ),
        "{out}"
    );
    assert!(out.contains(
        "structural aws_s3_bucket.logs (deleted outside Terraform: aws_s3_bucket, id acme-staging-logs)\n"
    ));
    let (code, out, _) = planlens_line("drift tests/fixtures/forget.json");
    assert_eq!(
        (code, out.as_str()),
        (0, "No drift: nothing changed outside of Terraform.\n")
    );
    assert_eq!(planlens_line("drift tests/fixtures/empty.json").0, 3);
}

/// "No drift" is said only when the plan could have shown drift: not when planning failed (exit
/// 4, as `check`), not for a plan from a Terraform that reports no drift (before 0.15.4; exit 1).
#[test]
fn drift_is_not_known_for_a_failed_or_old_plan() {
    let (code, out, _) = planlens_line("drift tests/fixtures/plan_errored.json");
    assert_eq!(
        (code, out.as_str()),
        (
            4,
            "Drift not known: planning failed, so Terraform may have stopped before it compared \
             every resource with what exists. Fix the error and plan again.\n"
        )
    );
    let (code, out, _) = planlens_line("drift tests/fixtures/tf0_14_unmarked_secrets.json");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("Drift not known: Terraform 0.14.11 wrote this plan"),
        "{out}"
    );
    assert!(!out.contains("No drift"), "{out}");
    let (code, out, _) =
        planlens_line("drift --format json tests/fixtures/tf0_14_unmarked_secrets.json");
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        v["incomplete"]
            .as_str()
            .is_some_and(|s| s.contains("only since 0.15.4"))
    );
    // A plan from Terraform 0.15.4 or later that lists none has none.
    let (_, out, _) = planlens_line("drift --format json tests/fixtures/forget.json");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["incomplete"].is_null());
}
