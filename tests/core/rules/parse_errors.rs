//! Parse errors: where, in which rule, and what.

use super::*;

/// Parses a rule file that must be invalid.
fn errors(text: &str) -> Vec<RuleError> {
    match RuleSet::parse(text) {
        Ok(_) => panic!("the rules parsed but should not:\n{text}"),
        Err(errors) => errors,
    }
}

/// The one error of an invalid file.
fn error(text: &str) -> RuleError {
    let mut all = errors(text);
    assert_eq!(all.len(), 1, "expected one error, got {all:#?}");
    all.remove(0)
}

#[test]
fn a_syntax_error_is_one_error_with_its_position() {
    let e = error("[[rule]]\nid = \"x\"\nmessage = \"unclosed\nseverity = \"deny\"\n");
    assert_eq!((e.line, e.column), (3, 20));
    assert_eq!(e.rule_id, None);
    assert!(e.message.contains("string"), "{}", e.message);
}

#[test]
fn an_unknown_key_names_the_key_and_the_rule() {
    let e =
        error("[[rule]]\nid = \"x\"\nseverty = \"deny\"\nseverity = \"deny\"\nmessage = \"m\"\n");
    assert_eq!((e.line, e.column), (3, 1));
    assert_eq!(e.rule_id.as_deref(), Some("x"));
    assert!(
        e.message.starts_with("unknown key \"severty\""),
        "{}",
        e.message
    );
    let e = error("[[rules]]\nid = \"x\"\n");
    assert_eq!((e.line, e.column), (1, 3));
    assert!(
        e.message.starts_with("unknown key \"rules\""),
        "{}",
        e.message
    );
}

#[test]
fn an_unknown_operator_lists_the_known_ones() {
    let text = "[[rule]]\nid = \"x\"\nseverity = \"deny\"\nmessage = \"m\"\n\
                [[rule.attribute]]\npath = \"after.min_count\"\n  grater_than = 5\n";
    let e = error(text);
    assert_eq!((e.line, e.column), (7, 3));
    assert_eq!(e.rule_id.as_deref(), Some("x"));
    assert_eq!(
        e.to_string(),
        "line 7, column 3 (rule \"x\"): unknown operator \"grater_than\"; expected one of \
         equals, not_equals, in, not_in, lt, gt, le, ge, regex, exists, changed"
    );
}

#[test]
fn a_bad_regex_points_at_its_value() {
    let text = "[[rule]]\nid = \"re\"\nseverity = \"warn\"\nmessage = \"m\"\n\
                [[rule.attribute]]\npath = \"after.name\"\nregex = '(unclosed'\n";
    let e = error(text);
    assert_eq!((e.line, e.column), (7, 9));
    assert_eq!(e.rule_id.as_deref(), Some("re"));
    assert!(e.message.starts_with("invalid regex"), "{}", e.message);
}

#[test]
fn a_duplicate_id_is_reported_at_the_second() {
    let rule =
        |id: &str| format!("[[rule]]\nid = \"{id}\"\nseverity = \"info\"\nmessage = \"m\"\n");
    let text = format!(
        "include_builtin = false\n{}{}{}",
        rule("a"),
        rule("b"),
        rule("a")
    );
    let e = error(&text);
    assert_eq!((e.line, e.column), (11, 6));
    assert_eq!(e.rule_id.as_deref(), Some("a"));
    assert_eq!(e.message, "duplicate rule id \"a\" (first used on line 3)");
}

#[test]
fn a_builtin_id_cannot_be_reused_unless_the_pack_is_off() {
    let text = "[[rule]]\nid = \"minor-drift\"\nseverity = \"info\"\nmessage = \"m\"\n";
    let e = error(text);
    assert_eq!((e.line, e.column), (2, 6));
    assert!(e.message.contains("built-in pack"), "{}", e.message);
    let replaced = rules(&format!("include_builtin = false\n{text}"));
    assert_eq!(replaced.rules().len(), 1);
}

#[test]
fn a_missing_message_is_reported_at_the_rule() {
    let e = error("include_builtin = false\n\n[[rule]]\nid = \"quiet\"\nseverity = \"warn\"\n");
    assert_eq!((e.line, e.column), (3, 1));
    assert_eq!(e.rule_id.as_deref(), Some("quiet"));
    assert_eq!(e.message, "the rule has no message");
}

#[test]
fn missing_id_and_severity_are_reported() {
    let all = errors("[[rule]]\nmessage = \"m\"\n");
    assert_eq!(all.len(), 2, "{all:#?}");
    assert!(
        all.iter()
            .all(|e| (e.line, e.column) == (1, 1) && e.rule_id.is_none())
    );
    assert!(all.iter().any(|e| e.message == "the rule has no id"));
    assert!(
        all.iter()
            .any(|e| e.message.starts_with("the rule has no severity"))
    );
}

#[test]
fn an_unknown_placeholder_is_reported_where_it_is_written() {
    let text =
        "[[rule]]\nid = \"p\"\nseverity = \"warn\"\nmessage = \"Instance {adress} changed\"\n";
    let e = error(text);
    assert_eq!((e.line, e.column), (4, 21));
    assert_eq!(e.rule_id.as_deref(), Some("p"));
    assert!(
        e.message
            .starts_with("unknown placeholder {adress}; expected one of {address}"),
        "{}",
        e.message
    );
}

#[test]
fn placeholders_must_fit_the_kind_of_rule() {
    let e = error(
        "[[rule]]\nid = \"agg\"\nseverity = \"deny\"\nmessage = \"{count}: {address}\"\ncount = { gt = 1 }\n",
    );
    assert_eq!((e.line, e.column), (4, 21));
    assert!(e.message.contains("counts resources"), "{}", e.message);
    let e = error("[[rule]]\nid = \"one\"\nseverity = \"deny\"\nmessage = \"{count}\"\n");
    assert_eq!((e.line, e.column), (4, 12));
    let e = error("[[rule]]\nid = \"p\"\nseverity = \"deny\"\nmessage = \"{after.tags[x]}\"\n");
    assert_eq!((e.line, e.column), (4, 12));
}

#[test]
fn two_operators_in_one_condition_are_an_error() {
    let text = "[[rule]]\nid = \"two\"\nseverity = \"deny\"\nmessage = \"m\"\n\
                [[rule.attribute]]\npath = \"after.x\"\nequals = 1\nregex = 'a'\n";
    let e = error(text);
    assert_eq!((e.line, e.column), (8, 1));
    assert_eq!(e.rule_id.as_deref(), Some("two"));
    assert!(e.message.contains("exactly one operator"), "{}", e.message);
}

#[test]
fn a_condition_without_operator_or_path_is_an_error() {
    let text = "[[rule]]\nid = \"none\"\nseverity = \"deny\"\nmessage = \"m\"\n\
                [[rule.attribute]]\npath = \"after.x\"\n[[rule.variable]]\nequals = \"prod\"\n";
    let all = errors(text);
    assert_eq!(all.len(), 2, "{all:#?}");
    assert_eq!((all[0].line, all[0].column), (5, 1));
    assert!(all[0].message.contains("no operator"), "{}", all[0].message);
    assert_eq!((all[1].line, all[1].column), (7, 1));
    assert!(all[1].message.contains("has no name"), "{}", all[1].message);
}

#[test]
fn unknown_values_are_reported_at_the_value() {
    let text = "[[rule]]\nid = \"v\"\nseverity = \"block\"\nmessage = \"m\"\n\
                actions = [\"create\", \"destroy\"]\nmode = \"resource\"\ndrift = \"major\"\n";
    let all = errors(text);
    let got: Vec<(usize, usize, &str)> = all
        .iter()
        .map(|e| (e.line, e.column, e.message.split(';').next().unwrap_or("")))
        .collect();
    assert_eq!(
        got,
        [
            (3, 12, "unknown severity \"block\""),
            (5, 22, "unknown action \"destroy\""),
            (6, 8, "unknown mode \"resource\""),
            (7, 9, "unknown drift \"major\""),
        ]
    );
    assert!(all.iter().all(|e| e.rule_id.as_deref() == Some("v")));
}

#[test]
fn operands_of_the_wrong_type_are_errors() {
    let cond = |c: &str| {
        error(&format!(
            "[[rule]]\nid = \"t\"\nseverity = \"deny\"\nmessage = \"m\"\n[[rule.attribute]]\n{c}\n"
        ))
    };
    let e = cond("path = \"after.min_count\"\nlt = \"3\"");
    assert_eq!((e.line, e.column), (7, 6));
    assert!(e.message.contains("needs a number"), "{}", e.message);
    assert!(
        cond("path = \"after.x\"\nin = \"a\"")
            .message
            .contains("array")
    );
    assert!(
        cond("path = \"after.x\"\nexists = 1")
            .message
            .contains("true or false")
    );
    let e = cond("path = \"tags.x\"\nequals = 1");
    assert_eq!((e.line, e.column), (6, 9));
    assert!(
        e.message
            .contains("must start with \"before.\" or \"after.\""),
        "{}",
        e.message
    );
    let e = cond("path = \"after.tags\"\nchanged = true");
    assert!(
        e.message.contains("without \"before.\"/\"after.\""),
        "{}",
        e.message
    );
    let e = cond("path = \"after.a..b\"\nexists = true");
    assert_eq!((e.line, e.column), (6, 17));
    let e =
        error("[[rule]]\nid = \"c\"\nseverity = \"deny\"\nmessage = \"m\"\ncount = { more = 5 }\n");
    assert_eq!((e.line, e.column), (5, 11));
    assert!(
        e.message.starts_with("unknown operator \"more\" in count"),
        "{}",
        e.message
    );
    let e = error(
        "[[rule]]\nid = \"v\"\nseverity = \"deny\"\nmessage = \"m\"\n[[rule.variable]]\nname = \"env\"\nchanged = true\n",
    );
    assert!(
        e.message.starts_with("changed only applies"),
        "{}",
        e.message
    );
}

#[test]
fn every_problem_is_reported_at_once_in_file_order() {
    let text = "include_builtin = false\n\
                [[rule]]\nid = \"a\"\nseverity = \"fatal\"\nmessage = \"{bad}\"\n\
                [[rule]]\nid = \"b c\"\nseverity = \"warn\"\nmessage = \"m\"\ncolour = \"red\"\n";
    let all = errors(text);
    let got: Vec<(usize, Option<&str>)> =
        all.iter().map(|e| (e.line, e.rule_id.as_deref())).collect();
    assert_eq!(
        got,
        [
            (4, Some("a")),
            (5, Some("a")),
            (7, Some("b c")),
            (10, Some("b c"))
        ]
    );
}

#[test]
fn include_builtin_inside_a_rule_is_explained() {
    let e = error(
        "[[rule]]\nid = \"x\"\nseverity = \"info\"\nmessage = \"m\"\ninclude_builtin = false\n",
    );
    assert_eq!((e.line, e.column), (5, 1));
    assert!(
        e.message.contains("before the first [[rule]]"),
        "{}",
        e.message
    );
}
