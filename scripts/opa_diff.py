#!/usr/bin/env python3
"""Differential test: Planlens's Rego engine against OPA itself, on every policy fixture and plan.

OPA 1.20's Go engine comes from PyPI as the wheel `opa-golib-python-bindings` (a ctypes bridge;
its metadata asks for Python >= 3.14 but it runs on 3.11). It is downloaded once into
.cache/opa/ (gitignored); without network and without a cached wheel the test prints SKIPPED
and exits 0.

For every plan (our fixtures, and ../shared/fixtures/real when present) and every policy set
(a directory of tests/fixtures/policies, or one file of refused/), with the environment label
`staging` and then `prod`:
- Planlens (examples/policy_diff.rs) prints the plan text its policies see, the input groups
  it chose (shape and packages), its findings or its errors, and its test results;
- this script builds each group's input itself from that plan text (conftest/OPA: the plan;
  Spacelift: {"terraform", "spacelift"}; Scalr: {"tfplan", "tfrun"}), evaluates the same packages
  with OPA, turns the values of deny/violation/warn into findings by the rules Planlens documents
  (a set element's string or `msg`), and compares the findings exactly (rule, severity, message;
  as multisets), the compile errors (file, line, code, message) and every test's pass/fail.
OPA accepts Rego v1 only, so v0 files are given to OPA through a mechanical rewrite of their rule
heads (`deny[msg] {` → `deny contains msg if {`, `p {` → `p if {`).

Exit status: 0 when everything agrees (or SKIPPED), 1 with every difference printed.
"""

import glob
import json
import os
import re
import subprocess
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, ".cache", "opa")
WHEEL = "opa-golib-python-bindings==0.4.4"
POLICIES = os.path.join(ROOT, "tests", "fixtures", "policies")


def opa_engine_class():
    """OpaEngine from the cached wheel, fetching it first if needed; None when unavailable."""
    unpacked = os.path.join(CACHE, "wheel")
    if not os.path.isdir(os.path.join(unpacked, "opa_bindings")):
        os.makedirs(CACHE, exist_ok=True)
        wheels = glob.glob(os.path.join(CACHE, "*.whl"))
        if not wheels:
            result = subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                 "--ignore-requires-python", "--dest", CACHE, WHEEL],
                capture_output=True, text=True, timeout=300)
            wheels = glob.glob(os.path.join(CACHE, "*.whl"))
            if result.returncode != 0 or not wheels:
                return None
        with zipfile.ZipFile(wheels[0]) as z:
            z.extractall(unpacked)
    sys.path.insert(0, unpacked)
    try:
        from opa_bindings.engine import OpaEngine, OpaError  # noqa: E402
        OpaEngine().close()  # loads the Go library: fails on a too old C library
    except (ImportError, OSError) as e:
        print(f"opa_diff: the OPA wheel does not load here ({e})")
        return None
    return OpaEngine, OpaError


def policy_sets():
    sets = []
    for d in sorted(glob.glob(os.path.join(POLICIES, "*", ""))):
        name = os.path.basename(os.path.dirname(d))
        files = sorted(glob.glob(os.path.join(d, "*.rego")))
        if name == "runaway":
            continue  # stopped by Planlens's time limit; OPA has none here
        if name == "refused":
            sets += [{"name": os.path.relpath(f, POLICIES), "files": [f]} for f in files]
        else:
            sets.append({"name": name, "files": files})
    return sets


def plans():
    own = [p for p in sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "**", "*"),
                                       recursive=True))
           if os.path.isfile(p) and "policies" not in p and not p.endswith((".md", ".toml"))]
    real_dir = os.path.join(ROOT, "..", "shared", "fixtures", "real")
    real = sorted(p for p in glob.glob(os.path.join(real_dir, "*")) if not p.endswith(".md"))
    if not real:
        print("opa_diff: ../shared/fixtures/real not found: SKIPPED the real corpus")
    return own + real


# --- v0 → v1 for OPA ------------------------------------------------------------------------

HEAD = re.compile(r"^(?P<head>(?:\} else\b.*?|[A-Za-z_][\w.]*.*?))\s*\{\s*$")


def split_partial_set(head):
    """`deny[expr]` → ("deny", "expr") when the brackets close at the end of the head."""
    m = re.match(r"^([A-Za-z_][\w]*)\[", head)
    if not m or not head.endswith("]"):
        return None
    depth = 0
    for i, c in enumerate(head[len(m.group(1)):], start=len(m.group(1))):
        depth += c == "["
        depth -= c == "]"
        if depth == 0:
            return (m.group(1), head[len(m.group(1)) + 1:-1]) if i == len(head) - 1 else None
    return None


def uses_v1_keywords(text):
    """`if`/`contains` used as keywords without an import: not v0, so not rewritten."""
    if re.search(r"^import (future\.keywords|rego\.v1)", text, re.M):
        return False
    code = re.sub(r'"(\\.|[^"\\])*"|`[^`]*`|#.*', "", text)
    return re.search(r"\b(if|contains)\b(?!\()", code) is not None


def to_v1(text):
    out = []
    for line in text.split("\n"):
        m = HEAD.match(line)
        if m and not line.startswith((" ", "\t", "#")) or (m and line.startswith("} else")):
            head = m.group("head")
            if not re.search(r"\bif\b", head) and not head.rstrip().endswith("="):
                partial = split_partial_set(head)
                if partial:
                    head = f"{partial[0]} contains {partial[1]}"
                line = f"{head} if {{"
        out.append(line)
    return "\n".join(out)


# --- inputs and findings, as README "Rego policies" documents them ---------------------------

def spacelift_labels(labels):
    return [f"{'env' if k == 'environment' else k}:{v}" for k, v in sorted(labels.items())]


def input_for(shape, plan, name, labels):
    if shape in ("conftest", "opa"):
        return plan
    if shape == "spacelift":
        return {"terraform": plan, "spacelift": {
            "stack": {"name": name, "labels": spacelift_labels(labels)},
            "run": {"type": "PROPOSED", "drift_detection": False}}}
    tfrun = {"workspace": {"name": name}, "is_dry": True, "source": "planlens"}
    if "environment" in labels:
        tfrun["workspace"]["environment_type"] = labels["environment"]
        tfrun["environment"] = {"name": labels["environment"]}
    return {"tfplan": plan, "tfrun": tfrun}


def reads_rule(shape, rule):
    kinds = ["deny", "warn"] if shape == "spacelift" else ["deny", "violation", "warn"]
    for kind in kinds:
        if rule == kind:
            return True
        if shape == "conftest" and re.fullmatch(kind + r"(_[A-Za-z0-9_]+)", rule):
            return True
    return False


def go_json(value):
    """JSON as Go's encoding/json writes it inside a message (compact, keys sorted)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def messages(rule, value):
    def one(v):
        if isinstance(v, str):
            return v
        if isinstance(v, dict) and isinstance(v.get("msg"), str):
            return v["msg"]
        return go_json(v)
    if isinstance(value, list):
        return [one(v) for v in value]
    if value is True:
        return [f"{rule} is true"]
    if value is False or value is None:
        return []
    return [one(value)]


def severity(rule):
    return "warn" if rule.rsplit(".", 1)[-1].startswith("warn") else "deny"


ERROR_LINE = re.compile(r"(?P<file>[^\s:]+\.rego):(?P<line>\d+): (?P<code>\w+): (?P<msg>.*)")


def opa_errors(message):
    """OPA's `file:line: code: message` lines (the first line of each message)."""
    return sorted((m["file"], int(m["line"]), m["code"], m["msg"].strip())
                  for m in ERROR_LINE.finditer(message))


class OpaSet:
    """One policy set loaded into OPA (v0 files rewritten), or its load error."""

    def __init__(self, OpaEngine, OpaError, files):
        self.OpaError = OpaError
        self.engine = OpaEngine()
        self.error = None
        for f in files:
            text = open(f, encoding="utf-8").read()
            try:
                self.engine.add_policy(f, text)
            except OpaError as e:
                # A v0 file: OPA reads v1 only, so it gets the rewrite; a file that is neither
                # keeps OPA's error about the file as written.
                if e.code != "parse_error" or to_v1(text) == text or uses_v1_keywords(text):
                    self.error = e.message
                    return
                try:
                    self.engine = self.engine  # the failed add left the engine unchanged
                    self.engine.add_policy(f, to_v1(text))
                except OpaError:
                    self.error = e.message
                    return

    def document(self, package, input_value):
        try:
            return self.engine.eval_document(package, input_value), None
        except self.OpaError as e:
            if e.code == "undefined":
                return {}, None
            return None, e.message


def main():
    found = opa_engine_class()
    if found is None:
        print("opa_diff: SKIPPED (no usable OPA wheel: none cached in .cache/opa and PyPI not reachable)")
        return 0
    OpaEngine, OpaError = found
    sets = policy_sets()
    plan_paths = plans()
    differences = []
    compared = {"plans": 0, "evaluations": 0, "findings": 0, "errors": 0, "tests": 0}
    opa_sets = {s["name"]: OpaSet(OpaEngine, OpaError, s["files"]) for s in sets}
    for environment in ("staging", "prod"):
        labels = {"environment": environment}
        job = {"plans": plan_paths, "sets": sets, "labels": labels, "time_limit_ms": 60000}
        run = subprocess.run(
            ["cargo", "run", "--quiet", "--example", "policy_diff"],
            input=json.dumps(job), capture_output=True, text=True, cwd=ROOT)
        if run.returncode != 0:
            print(run.stderr)
            return 1
        ours = json.loads(run.stdout)
        for plan in ours["plans"]:
            if "load_error" in plan:
                continue
            compared["plans"] += environment == "staging"
            plan_value = json.loads(plan["text"])
            for result in plan["results"]:
                opa_set = opa_sets[result["set"]]
                where = f"{os.path.relpath(plan['plan'], ROOT)} × {result['set']} ({environment})"
                compared["evaluations"] += 1
                theirs, their_errors = [], []
                if opa_set.error:
                    their_errors = opa_errors(opa_set.error)
                else:
                    for group in result["groups"]:
                        value = input_for(group["shape"], plan_value, plan["name"], labels)
                        for package in group["packages"]:
                            doc, error = opa_set.document(package, value)
                            if error:
                                their_errors += opa_errors(error) or [("", 0, "error", error)]
                                continue
                            for rule, v in sorted((doc or {}).items()):
                                if not reads_rule(group["shape"], rule):
                                    continue
                                path = f"data.{package}.{rule}"
                                theirs += [(path, severity(path), m) for m in messages(path, v)]
                our_errors = sorted((e["file"], e["line"], e["code"], e["message"])
                                    for e in result.get("errors", []))
                if our_errors or their_errors:
                    compared["errors"] += 1
                    if our_errors != sorted(set(their_errors)):
                        differences.append(f"{where}: errors differ\n  planlens: {our_errors}\n"
                                           f"  opa:      {sorted(set(their_errors))}")
                    continue
                mine = sorted((f["rule"], f["severity"], f["message"])
                              for f in result.get("findings", []))
                compared["findings"] += len(mine)
                if mine != sorted(theirs):
                    only_ours = [f for f in mine if f not in theirs]
                    only_theirs = [f for f in theirs if f not in mine]
                    differences.append(f"{where}: findings differ\n  only planlens: {only_ours}\n"
                                       f"  only opa:      {only_theirs}")
        if environment == "staging":
            for tests in ours["tests"]:
                opa_set = opa_sets[tests["set"]]
                if "errors" in tests or opa_set.error:
                    continue
                theirs = []
                for test in tests["tests"]:
                    value, error = opa_set.document(test["rule"][len("data."):], None)
                    theirs.append((test["rule"], error is None and value is True))
                mine = sorted((t["rule"], t["passed"]) for t in tests["tests"])
                compared["tests"] += len(mine)
                if mine != sorted(theirs):
                    differences.append(f"tests of {tests['set']} differ\n  planlens: {mine}\n"
                                       f"  opa:      {sorted(theirs)}")
    for d in differences:
        print(d)
    print(f"opa_diff: {compared['plans']} plans × {len(sets)} policy sets × 2 environments: "
          f"{compared['evaluations']} evaluations, {compared['findings']} findings, "
          f"{compared['errors']} refused, {compared['tests']} tests compared with OPA; "
          f"{len(differences)} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
