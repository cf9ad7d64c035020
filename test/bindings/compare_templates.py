#!/usr/bin/env python3
"""Compares the CloudFormation templates of cloud assemblies synthesized from different languages.

Usage:
  compare_templates.py REF_LABEL=REF_CDK_OUT OTHER_LABEL=OTHER_CDK_OUT [...]
  compare_templates.py --self-test

Every stack of the first (reference) assembly must exist in each other assembly with the same
resources and properties. Only what legitimately differs between languages is normalized away:
asset hashes, the `aws:cdk:*` / `aws:asset:*` resource metadata, the `CDKMetadata` resource and its
condition, the bootstrap-version parameter and rule, and the key order inside a Kubernetes manifest
(Go and Java maps have no insertion order; Kubernetes reads the JSON object, not its order). Exit 0 when all match; exit 1 with a unified
diff of the canonical JSON per differing stack; exit 2 on bad input.
"""
import copy
import difflib
import json
import os
import re
import sys

HASH = re.compile(r"\b[0-9a-f]{64}\b")
NOISE_METADATA_PREFIXES = ("aws:cdk:", "aws:asset:")
MAX_DIFF_LINES = 400


class InputError(Exception):
    pass


def load_assembly(cdk_out):
    """Returns {stack artifact id: template} for a cdk.out directory."""
    manifest_path = os.path.join(cdk_out, "manifest.json")
    if not os.path.isfile(manifest_path):
        raise InputError(f"{manifest_path} not found: did the app synthesize into {cdk_out}?")
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    stacks = {}
    for artifact_id, artifact in manifest.get("artifacts", {}).items():
        if artifact.get("type") != "aws:cloudformation:stack":
            continue
        template_file = os.path.join(cdk_out, artifact["properties"]["templateFile"])
        with open(template_file, encoding="utf-8") as f:
            stacks[artifact_id] = json.load(f)
    if not stacks:
        raise InputError(f"{cdk_out} holds no CloudFormation stack")
    return stacks


def _replace_hashes(value):
    if isinstance(value, str):
        return HASH.sub("<asset-hash>", value)
    if isinstance(value, list):
        return [_replace_hashes(v) for v in value]
    if isinstance(value, dict):
        return {_replace_hashes(k): _replace_hashes(v) for k, v in value.items()}
    return value


MANIFEST_TYPE = "Custom::AWSCDK-EKS-KubernetesResource"


def _sorted(value):
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def _normalize_manifest(manifest):
    """The manifest's JSON with sorted keys; intrinsics in an Fn::Join become numbered placeholders."""
    parts = manifest["Fn::Join"][1] if isinstance(manifest, dict) and "Fn::Join" in manifest else [manifest]
    if not all(isinstance(p, (str, dict)) for p in parts):
        return manifest
    intrinsics = [p for p in parts if not isinstance(p, str)]
    text, n = "", 0
    for p in parts:
        if isinstance(p, str):
            text += p
        else:
            text += f"__INTRINSIC_{n}__"
            n += 1
    try:
        parsed = json.loads(text)
    except ValueError:
        return manifest
    return {"ManifestSortedKeys": _sorted(parsed), "Intrinsics": intrinsics}


def normalize(template):
    """Drops what differs between languages for reasons unrelated to the infrastructure."""
    t = copy.deepcopy(template)
    resources = t.get("Resources", {})
    for logical_id in [k for k, r in resources.items() if r.get("Type") == "AWS::CDK::Metadata"]:
        del resources[logical_id]
    for resource in resources.values():
        properties = resource.get("Properties")
        if resource.get("Type") == MANIFEST_TYPE and isinstance(properties, dict) and "Manifest" in properties:
            properties["Manifest"] = _normalize_manifest(properties["Manifest"])
        metadata = resource.get("Metadata")
        if isinstance(metadata, dict):
            for key in [k for k in metadata if k.startswith(NOISE_METADATA_PREFIXES)]:
                del metadata[key]
            if not metadata:
                del resource["Metadata"]
    for section, key in (("Conditions", "CDKMetadataAvailable"),
                         ("Parameters", "BootstrapVersion"),
                         ("Rules", "CheckBootstrapVersion")):
        if isinstance(t.get(section), dict):
            t[section].pop(key, None)
            if not t[section]:
                del t[section]
    return _replace_hashes(t)


def canonical(template):
    return json.dumps(normalize(template), indent=2, sort_keys=True).splitlines()


def changed_paths(a, b, path="", out=None):
    """Lists the JSON paths where two normalized templates differ (a summary above the diff)."""
    out = [] if out is None else out
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            sub = f"{path}.{key}" if path else key
            if key not in b:
                out.append(f"{sub}: only in the reference")
            elif key not in a:
                out.append(f"{sub}: not in the reference")
            else:
                changed_paths(a[key], b[key], sub, out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            changed_paths(x, y, f"{path}[{i}]", out)
    elif a != b:
        out.append(f"{path}: {json.dumps(a)[:80]} -> {json.dumps(b)[:80]}")
    return out


def compare(reference_label, reference, other_label, other):
    """Returns a list of human-readable problems (unified diffs), empty when equal."""
    problems = []
    missing = sorted(set(reference) - set(other))
    extra = sorted(set(other) - set(reference))
    if missing or extra:
        problems.append(f"{other_label}: stacks differ from {reference_label}: "
                        f"missing {missing or '[]'}, unexpected {extra or '[]'}")
    for stack in sorted(set(reference) & set(other)):
        diff = list(difflib.unified_diff(
            canonical(reference[stack]), canonical(other[stack]),
            fromfile=f"{reference_label}/{stack}", tofile=f"{other_label}/{stack}",
            lineterm="", n=4))
        if diff:
            shown = diff[:MAX_DIFF_LINES]
            if len(diff) > MAX_DIFF_LINES:
                shown.append(f"... {len(diff) - MAX_DIFF_LINES} more diff lines")
            paths = changed_paths(normalize(reference[stack]), normalize(other[stack]))
            summary = [f"  {p}" for p in paths[:40]]
            if len(paths) > 40:
                summary.append(f"  ... {len(paths) - 40} more")
            problems.append(f"{other_label}: stack {stack} differs from {reference_label} "
                            f"(normalized templates) at:\n" + "\n".join(summary + [""] + shown))
    return problems


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    pairs = []
    for arg in argv:
        label, sep, path = arg.partition("=")
        if not sep or not label or not path:
            print(f"expected LABEL=CDK_OUT_DIR, got {arg!r}", file=sys.stderr)
            return 2
        pairs.append((label, path))
    if len(pairs) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        assemblies = [(label, load_assembly(path)) for label, path in pairs]
    except InputError as e:
        print(f"compare_templates: {e}", file=sys.stderr)
        return 2
    (ref_label, ref), others = assemblies[0], assemblies[1:]
    problems = []
    for label, assembly in others:
        problems += compare(ref_label, ref, label, assembly)
    if problems:
        print("\n\n".join(problems))
        print(f"\nFAIL: templates differ ({len(problems)} problem(s))")
        return 1
    stacks = ", ".join(sorted(ref))
    print(f"OK: {', '.join(l for l, _ in others)} match {ref_label} ({stacks}; "
          f"{sum(len(t.get('Resources', {})) for t in ref.values())} resources)")
    return 0


def self_test():
    """Checks that noise is ignored and that a real difference is reported."""
    base = {
        "Resources": {
            "Fn": {"Type": "AWS::Lambda::Function",
                   "Properties": {"MemorySize": 1024, "Code": {"S3Key": "a" * 64 + ".zip"}},
                   "Metadata": {"aws:cdk:path": "Stack/Fn/Resource", "aws:asset:path": "asset.x",
                                "checkov": {"skip": []}}},
            "CDKMetadata": {"Type": "AWS::CDK::Metadata", "Properties": {"Analytics": "v2:ts"}},
        },
        "Conditions": {"CDKMetadataAvailable": {}},
        "Parameters": {"BootstrapVersion": {"Type": "String"}},
        "Rules": {"CheckBootstrapVersion": {}},
    }
    noisy = copy.deepcopy(base)
    noisy["Resources"]["Fn"]["Properties"]["Code"]["S3Key"] = "b" * 64 + ".zip"
    noisy["Resources"]["Fn"]["Metadata"]["aws:cdk:path"] = "Stack/Fn/Other"
    noisy["Resources"]["CDKMetadata"]["Properties"]["Analytics"] = "v2:python"
    del noisy["Parameters"]
    changed = copy.deepcopy(base)
    changed["Resources"]["Fn"]["Properties"]["MemorySize"] = 512
    lost_metadata = copy.deepcopy(base)
    del lost_metadata["Resources"]["Fn"]["Metadata"]["checkov"]

    pod = {"Type": MANIFEST_TYPE, "Properties": {"Manifest": {"Fn::Join": ["", [
        '[{"kind":"Pod","spec":{"a":1,"b":"x-', {"Ref": "Ap"}, '"}}]']]}}}
    reordered = copy.deepcopy(pod)
    reordered["Properties"]["Manifest"]["Fn::Join"][1][0] = '[{"spec":{"b":"x-'
    reordered["Properties"]["Manifest"]["Fn::Join"][1][2] = '","a":1},"kind":"Pod"}]'
    other_value = copy.deepcopy(pod)
    other_value["Properties"]["Manifest"]["Fn::Join"][1][0] = '[{"kind":"Pod","spec":{"a":2,"b":"x-'

    failures = []
    if compare("ts", {"S": {"Resources": {"M": pod}}}, "go", {"S": {"Resources": {"M": reordered}}}):
        failures.append("a Kubernetes manifest's key order was reported")
    if not compare("ts", {"S": {"Resources": {"M": pod}}}, "go", {"S": {"Resources": {"M": other_value}}}):
        failures.append("a Kubernetes manifest's changed value was ignored")
    if compare("ts", {"S": base}, "py", {"S": noisy}):
        failures.append("noise-only difference was reported")
    diff = "\n".join(compare("ts", {"S": base}, "py", {"S": changed}))
    if '-        "MemorySize": 1024' not in diff or '+        "MemorySize": 512' not in diff:
        failures.append(f"changed MemorySize not shown as a diff:\n{diff}")
    if "Resources.Fn.Properties.MemorySize: 1024 -> 512" not in diff:
        failures.append(f"changed MemorySize not named by its path:\n{diff}")
    if not compare("ts", {"S": base}, "py", {"S": lost_metadata}):
        failures.append("non-CDK resource metadata difference was ignored")
    if not compare("ts", {"S": base}, "py", {"T": base}):
        failures.append("missing stack was not reported")
    for f in failures:
        print(f"self-test FAIL: {f}", file=sys.stderr)
    if not failures:
        print("self-test OK: noise ignored; property, metadata, manifest and stack differences reported")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
