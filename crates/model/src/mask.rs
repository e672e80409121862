//! Secret-like attribute names: which values Planlens masks although the plan does not mark them
//! sensitive.
//!
//! Terraform before 0.15 marked no resource value sensitive (only outputs declared sensitive), and
//! providers sometimes forget to mark an attribute, so a plan can carry a database password in
//! plain text. A [`Mask`] names the keys
//! whose values are treated as if the plan had marked them sensitive: the built-in
//! [`DEFAULT_PATTERNS`] plus the user's own. The load step (`load::mask`) turns it into sensitivity
//! marks once, so every view, rule message, link and comment masks these values exactly as it masks
//! the plan's own marks.
//!
//! What is masked: a non-empty **string** whose object key, or the key of any object it is inside,
//! matches a pattern (case-insensitive, the whole key, `*` for any run of characters). Numbers,
//! booleans, null and empty strings are never secrets (`password_length = 16`,
//! `get_password_data = false` stay visible). Keys that end in `_arn`, `_id`, `_ids`, `_name` or
//! `_names` name a secret rather than hold it (`secret_arn`, `access_key_id`), so the built-in
//! patterns leave them alone; the user's own patterns do not have that exception.
//!
//! `Masking` records what a document was loaded with and what it masked. Diagnostics are masked
//! too, by matching their references and snippet lines.

use std::collections::HashMap;

use aho_corasick::AhoCorasick;
use wildmatch::WildMatch;

/// The built-in patterns, matched case-insensitively against whole keys.
pub const DEFAULT_PATTERNS: &[&str] = &[
    "*password*",
    "*passwd*",
    "*passphrase*",
    "*secret*",
    "*token",
    "*private_key*",
    "*access_key*",
    "*client_key*",
    "*api_key*",
    "*apikey*",
    "*connection_string*",
    "*credential*",
    "*kube_config*",
    "*kubeconfig*",
];

/// Short literals one of which every key the built-in patterns match contains: fewer, shorter
/// needles make the prefilter ([`Mask::may_match_in`]) several times faster than the patterns'
/// own literals (a unit test checks that each pattern's literal contains one).
const BUILTIN_NEEDLES: &[&str] = &[
    "pass",
    "secret",
    "token",
    "_key",
    "apikey",
    "connection",
    "credential",
    "kube",
];

/// Keys the built-in patterns never mask: they name a secret instead of holding it.
pub const DEFAULT_EXEMPT: &[&str] = &["*_arn", "*_id", "*_ids", "*_name", "*_names"];

/// One compiled pattern. Most patterns are `*word*`, which a substring test answers faster than a
/// glob matcher.
#[derive(Debug, Clone)]
enum Matcher {
    Contains(String),
    Suffix(String),
    Glob(WildMatch),
}

impl Matcher {
    fn new(pattern: &str) -> Matcher {
        let p = pattern.to_ascii_lowercase();
        let inner = p.strip_prefix('*').unwrap_or(&p);
        let wild = |s: &str| s.contains(['*', '?']);
        if p.len() > 2 && p.starts_with('*') && p.ends_with('*') && !wild(&p[1..p.len() - 1]) {
            Matcher::Contains(p[1..p.len() - 1].to_string())
        } else if p.starts_with('*') && !wild(inner) {
            Matcher::Suffix(inner.to_string())
        } else {
            Matcher::Glob(WildMatch::new(&p))
        }
    }

    /// `key` must already be lowercase.
    fn is_match(&self, key: &str) -> bool {
        match self {
            Matcher::Contains(s) => key.contains(s.as_str()),
            Matcher::Suffix(s) => key.ends_with(s.as_str()),
            Matcher::Glob(g) => g.matches(key),
        }
    }
}

/// Which keys hold secrets: the built-in patterns (unless turned off) and the user's own.
#[derive(Debug, Clone)]
pub struct Mask {
    builtin: bool,
    user: Vec<String>,
    builtin_matchers: Vec<Matcher>,
    exempt: Vec<Matcher>,
    user_matchers: Vec<Matcher>,
    /// Finds, case-insensitively, a literal every matching key must contain (or a `\u` escape,
    /// which could spell one): text without any cannot hold a matching key. `None` when a pattern
    /// has no literal (`*`), so every text must be walked.
    prefilter: Option<AhoCorasick>,
}

impl Default for Mask {
    /// The built-in patterns only.
    fn default() -> Mask {
        Mask::new(true, &[])
    }
}

impl PartialEq for Mask {
    fn eq(&self, other: &Mask) -> bool {
        self.builtin == other.builtin && self.user == other.user
    }
}

impl Mask {
    /// A mask of the built-in patterns (when `builtin`) and `user` patterns. Blank patterns are
    /// ignored; patterns are trimmed.
    pub fn new(builtin: bool, user: &[String]) -> Mask {
        let user: Vec<String> = user
            .iter()
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        let compile = |ps: &[&str]| ps.iter().map(|p| Matcher::new(p)).collect::<Vec<_>>();
        let builtin_patterns: &[&str] = if builtin { DEFAULT_PATTERNS } else { &[] };
        let mut literals = vec!["\\u".to_string()];
        if builtin {
            literals.extend(BUILTIN_NEEDLES.iter().map(|n| n.to_string()));
        }
        let mut every_key = false;
        for p in user.iter() {
            // The longest run without wildcards: a key the glob matches contains it.
            match p.split(['*', '?']).max_by_key(|run| run.len()) {
                Some(run) if !run.is_empty() => literals.push(run.to_ascii_lowercase()),
                _ => every_key = true,
            }
        }
        let build = || {
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(&literals)
                .ok()
        };
        let prefilter = if every_key {
            None
        } else if builtin && user.is_empty() {
            // Every document, index and rule set makes the built-in mask: building its automaton
            // took longer than reading a small plan (fuzzing showed it), so it is built once.
            static BUILTIN: std::sync::OnceLock<Option<AhoCorasick>> = std::sync::OnceLock::new();
            BUILTIN.get_or_init(build).clone()
        } else {
            build()
        };
        Mask {
            builtin,
            builtin_matchers: compile(builtin_patterns),
            exempt: compile(DEFAULT_EXEMPT),
            user_matchers: user.iter().map(|p| Matcher::new(p)).collect(),
            user,
            prefilter,
        }
    }

    /// False when no key in `json` can match: it contains none of the patterns' literals (nor a
    /// `\u` escape). True means "walk it to find out".
    pub fn may_match_in(&self, json: &str) -> bool {
        self.prefilter.as_ref().is_none_or(|ac| ac.is_match(json))
    }

    /// This mask with `more` patterns added.
    pub fn with_patterns(&self, more: &[String]) -> Mask {
        let mut user = self.user.clone();
        user.extend(more.iter().cloned());
        Mask::new(self.builtin, &user)
    }

    /// The user's own patterns, as given (trimmed, blanks dropped).
    pub fn user_patterns(&self) -> &[String] {
        &self.user
    }

    /// True when the built-in patterns apply.
    pub fn uses_builtin(&self) -> bool {
        self.builtin
    }

    /// True when the value under `key` is a secret.
    pub fn matches(&self, key: &str) -> bool {
        let key = key.to_ascii_lowercase();
        self.matches_lowercase(&key)
    }

    fn matches_lowercase(&self, key: &str) -> bool {
        self.user_matchers.iter().any(|m| m.is_match(key))
            || (self.builtin_matchers.iter().any(|m| m.is_match(key))
                && !self.exempt.iter().any(|m| m.is_match(key)))
    }

    /// A matcher that remembers its answers: a plan repeats the same few hundred keys many
    /// thousand times.
    pub fn cached(&self) -> CachedMask<'_> {
        CachedMask {
            mask: self,
            seen: HashMap::new(),
            lower: String::new(),
        }
    }
}

/// [`Mask::matches`] with a cache of keys already seen.
pub struct CachedMask<'m> {
    mask: &'m Mask,
    seen: HashMap<String, bool>,
    lower: String,
}

impl CachedMask<'_> {
    /// [`Mask::may_match_in`].
    pub fn may_match_in(&self, json: &str) -> bool {
        self.mask.may_match_in(json)
    }

    /// True when the value under `key` is a secret.
    pub fn matches(&mut self, key: &str) -> bool {
        if let Some(&hit) = self.seen.get(key) {
            return hit;
        }
        self.lower.clear();
        self.lower
            .extend(key.chars().map(|c| c.to_ascii_lowercase()));
        let hit = self.mask.matches_lowercase(&self.lower);
        self.seen.insert(key.to_string(), hit);
        hit
    }
}

/// What the masking pass did to a document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Masking {
    /// The mask the document was loaded with.
    pub mask: Mask,
    /// True when the plan carries sensitivity marks of its own (`before_sensitive` /
    /// `after_sensitive`, written by Terraform 0.15 and later). A plan without any was written by
    /// an older Terraform: only secret-like names protect its secrets.
    pub plan_has_marks: bool,
    /// How many values were masked because of their key alone (the plan did not mark them).
    pub masked_by_name: usize,
}

impl Masking {
    /// For a plan without sensitivity marks (written before Terraform 0.15), what a reader must
    /// know: only names protect its secrets. `None` when the plan has marks of its own.
    pub fn unmarked_note(&self) -> Option<String> {
        (!self.plan_has_marks).then(|| {
            let masked = match self.masked_by_name {
                1 => "1 value was".to_string(),
                n => format!("{n} values were"),
            };
            format!(
                "this plan marks no resource value sensitive (Terraform before 0.15 marked only \
                 outputs declared sensitive): {masked} masked by attribute name; a secret under \
                 any other name is shown as it is"
            )
        })
    }
}

/// What Terraform writes for a sensitive value in a diagnostic's snippet (`var.x has a sensitive
/// value`); Planlens writes the same for a secret-named one.
pub const SENSITIVE_STATEMENT: &str = "has a sensitive value";

impl Mask {
    /// True when a reference (`var.db_password`, `aws_db_instance.main.password`,
    /// `local.creds["api_token"]`) names a secret in any of its steps.
    pub fn matches_reference(&self, traversal: &str) -> bool {
        traversal
            .split(['.', '[', ']', '"'])
            .filter(|step| !step.is_empty())
            .any(|step| self.matches(step))
    }

    /// Configuration code (a diagnostic's snippet) with the string literal of each secret-named
    /// assignment (`password = "…"`, `"token": "…"`) replaced by `(sensitive value)`.
    pub fn mask_code(&self, code: &str) -> String {
        let mut out = String::with_capacity(code.len());
        for (i, line) in code.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&self.mask_assignment(line));
        }
        out
    }

    /// One line: `KEY = "literal"` or `"KEY": "literal"` with a secret-named KEY.
    fn mask_assignment(&self, line: &str) -> String {
        let Some(eq) = line.find(['=', ':']) else {
            return line.to_string();
        };
        let key = line[..eq].trim().trim_matches('"');
        let rest = line[eq + 1..].trim_start();
        let is_key = !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !is_key || !rest.starts_with('"') || !self.matches(key) {
            return line.to_string();
        }
        // The literal ends at the next unescaped quote (or the line's end).
        let body = &rest[1..];
        let mut end = body.len();
        let mut escaped = false;
        for (i, c) in body.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => {
                    end = i + 1;
                    break;
                }
                _ => escaped = false,
            }
        }
        let start = line.len() - rest.len();
        format!("{}(sensitive value){}", &line[..start], &body[end..])
    }
}

/// True for a value the mask may hide: a non-empty string. (Numbers, booleans, null and `""`
/// carry no secret.)
pub fn is_maskable(value: &serde_json::Value) -> bool {
    matches!(value, serde_json::Value::String(s) if !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_patterns_match_secret_names_in_any_case() {
        let m = Mask::default();
        for key in [
            "password",
            "master_password",
            "DB_PASSWORD",
            "AdminPassword",
            "client_secret",
            "secret_string",
            "auth_token",
            "token",
            "private_key_pem",
            "primary_access_key",
            "connection_string",
            "api_key",
            "credentials",
            "kube_config_raw",
            "passphrase",
        ] {
            assert!(m.matches(key), "{key}");
        }
    }

    #[test]
    fn builtin_patterns_leave_names_of_secrets_and_settings_alone() {
        let m = Mask::default();
        for key in [
            "secret_arn",
            "secret_id",
            "access_key_id",
            "secret_name",
            "http_tokens",
            "instance_type",
            "tags",
            "key_name",
            "username",
        ] {
            assert!(!m.matches(key), "{key}");
        }
    }

    #[test]
    fn user_patterns_add_to_the_builtin_ones_without_exceptions() {
        let m = Mask::new(
            true,
            &["*_pin".to_string(), "  ".to_string(), "sas_id".into()],
        );
        assert!(m.matches("door_PIN"));
        assert!(m.matches("sas_id"));
        assert!(m.matches("password"));
        assert_eq!(m.user_patterns(), ["*_pin", "sas_id"]);
        let only_user = Mask::new(false, &["pin".to_string()]);
        assert!(!only_user.matches("password"));
        assert!(only_user.matches("PIN"));
        assert!(
            !only_user.matches("pin_code"),
            "a pattern matches the whole key"
        );
    }

    #[test]
    fn references_and_code_lines_are_masked_by_name() {
        let m = Mask::default();
        assert!(m.matches_reference("var.db_password"));
        assert!(m.matches_reference("local.creds[\"api_token\"]"));
        assert!(!m.matches_reference("var.instance_type"));
        let code = "  password = \"hun\\\"ter2\" # set by hand\n  name     = \"orders\"\n  \"API_KEY\": \"abc\",";
        assert_eq!(
            m.mask_code(code),
            "  password = (sensitive value) # set by hand\n  name     = \"orders\"\n  \"API_KEY\": (sensitive value),"
        );
        assert_eq!(m.mask_code("password = var.pw"), "password = var.pw");
    }

    #[test]
    fn every_builtin_pattern_contains_a_prefilter_needle() {
        for p in DEFAULT_PATTERNS {
            let literal = p.trim_matches('*');
            assert!(BUILTIN_NEEDLES.iter().any(|n| literal.contains(n)), "{p}");
        }
    }

    #[test]
    fn the_prefilter_never_skips_a_text_with_a_matching_key() {
        let m = Mask::default();
        assert!(m.may_match_in(r#"{"DB_PassWord":"x"}"#));
        assert!(m.may_match_in(r#"{"pass\u0077ord":"x"}"#));
        assert!(!m.may_match_in(r#"{"name":"web","tags":{"team":"a"}}"#));
        let user = Mask::new(false, &["door_p?n".to_string()]);
        assert!(user.may_match_in(r#"{"DOOR_PIN":1}"#));
        assert!(!user.may_match_in(r#"{"password":1}"#));
        assert!(Mask::new(false, &["*".to_string()]).may_match_in("{}"));
    }

    #[test]
    fn the_cache_answers_like_the_mask() {
        let m = Mask::default();
        let mut c = m.cached();
        for key in ["password", "password", "Password", "id", "id"] {
            assert_eq!(c.matches(key), m.matches(key), "{key}");
        }
    }
}
