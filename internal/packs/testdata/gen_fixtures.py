# Regenerates testdata/valid/demo and testdata/invalid/<case>/ from one base
# pack, each invalid case with exactly one mistake. Run from this directory:
#   python3 gen_fixtures.py
import os, shutil

BASE = {
"pack.yaml": """scenario_pack:
  id: demo
  version: 1.0.0
  title: Demo pack
  resource_types: [demo.thing]
  actions: [install]
  parameters:
    greeting:
      type: string
      default: hello
  plan_templates:
    - id: demo.install
      action: install
      entrypoint: prepare
      file: templates/install.yaml
""",
"templates/install.yaml": """plan_template:
  id: demo.install
  action: install
  title: Install demo
  stages:
    - id: prepare
      title: Prepare
      jobs: [prepare]
    - id: apply
      title: Apply
      jobs: [apply]
  gates:
    - id: approve
      type: approval
      reason: Demo changes the host.
      options: [proceed, {id: cancel operation, effect: cancel}]
      before: [apply]
""",
"jobs/prepare.yaml": """job:
  id: prepare
  title: Prepare
  scope:
    expand: each_node
  inputs:
    parameters:
      greeting: {}
  outputs:
    provides:
      capabilities:
        - {key: demo.prepared, scope: node}
    artifacts:
      - id: demo.token
        sensitivity: secret
        ttl: 1h
    evidence:
      - id: marker_present
        command: test -f /var/lib/demo/marker
        expected_exit_code: 0
      - id: greeting_written
        command: cat /var/lib/demo/greeting
        match: regex
        expected: "^hello"
  controls:
    retry_policy: {max_attempts: 2, backoff: 5s}
    idempotency: {key: "prepare:{node_id}:{greeting}"}
    timeout: 2m
  script: scripts/prepare.sh
""",
"jobs/apply.yaml": """job:
  id: apply
  title: Apply
  scope:
    expand: once
  inputs:
    requires:
      capabilities:
        - {key: demo.prepared, scope: node}
      artifacts:
        - {id: demo.token}
  outputs:
    evidence:
      - id: applied
        command: systemctl is-active demo
        expected: active
  controls:
    timeout: 5m
  after: [prepare]
  script: scripts/apply.sh
""",
"scripts/prepare.sh": "#!/usr/bin/env bash\nset -euo pipefail\nmkdir -p /var/lib/demo\necho \"$CP_PARAM_GREETING\" >/var/lib/demo/greeting\ntouch /var/lib/demo/marker\n",
"scripts/apply.sh": "#!/usr/bin/env bash\nset -euo pipefail\nsystemctl enable --now demo\n",
}

# case -> list of (file, old, new); new file when old is None; delete when new is None.
CASES = {
    "unknown-key-pack": [("pack.yaml", "  title: Demo pack\n", "  title: Demo pack\n  colour: blue\n")],
    "unknown-key-template": [("templates/install.yaml", "      title: Apply\n", "      title: Apply\n      owner: ops\n")],
    "unknown-key-job": [("jobs/apply.yaml", "        expected: active\n", "        expected: active\n        comand: true\n")],
    "duplicate-job-id": [("jobs/prepare-again.yaml", None, BASE["jobs/prepare.yaml"])],
    "template-unknown-job": [("templates/install.yaml", "jobs: [apply]", "jobs: [apply, publish]")],
    "evidence-without-command": [("jobs/apply.yaml", "        command: systemctl is-active demo\n", "")],
    "removed-field-storage": [("jobs/prepare.yaml", "        sensitivity: secret\n", "        sensitivity: secret\n        storage: secret_ref\n")],
    "idempotency-unknown-param": [("jobs/prepare.yaml", "{greeting}\"}", "{greeting}:{colour}\"}")],
    "version-not-semver": [("pack.yaml", "version: 1.0.0", "version: \"1.0\"")],
    "missing-pack-id": [("pack.yaml", "  id: demo\n", "")],
    "action-without-template": [("pack.yaml", "actions: [install]", "actions: [install, upgrade]")],
    "template-undeclared-action": [
        ("pack.yaml", "      file: templates/install.yaml\n", "      file: templates/install.yaml\n    - id: demo.uninstall\n      action: uninstall\n      entrypoint: apply\n      file: templates/uninstall.yaml\n"),
        ("templates/uninstall.yaml", None, "plan_template:\n  id: demo.uninstall\n  action: uninstall\n  title: Uninstall demo\n  stages:\n    - id: apply\n      title: Apply\n      jobs: [apply]\n"),
    ],
    "template-unknown-kind": [("pack.yaml", "      file: templates/install.yaml\n", "      file: templates/install.yaml\n      kind: setup\n")],
    "export-unknown-placeholder": [("pack.yaml", "  parameters:\n", "  provides:\n    - capability: demo.thing\n      attributes: {greeting: \"{greeting}\", colour: \"{colour}\"}\n  parameters:\n")],
    "template-kind-twice": [
        ("pack.yaml", "  actions: [install]\n", "  actions: [install, setup]\n"),
        ("pack.yaml", "      file: templates/install.yaml\n", "      file: templates/install.yaml\n    - id: demo.setup\n      action: setup\n      entrypoint: apply\n      file: templates/setup.yaml\n      kind: create\n"),
        ("templates/setup.yaml", None, "plan_template:\n  id: demo.setup\n  action: setup\n  title: Set up demo\n  stages:\n    - id: apply\n      title: Apply\n      jobs: [apply]\n"),
    ],
    "template-file-missing": [("pack.yaml", "file: templates/install.yaml", "file: templates/setup.yaml")],
    "script-file-missing": [("jobs/apply.yaml", "script: scripts/apply.sh", "script: scripts/deploy.sh")],
    "unknown-expand": [("jobs/prepare.yaml", "expand: each_node", "expand: every_node")],
    "unknown-capability-scope": [("jobs/apply.yaml", "{key: demo.prepared, scope: node}", "{key: demo.prepared, scope: host}")],
    "invalid-sensitivity": [("jobs/prepare.yaml", "sensitivity: secret", "sensitivity: private")],
    "invalid-regex": [("jobs/prepare.yaml", "expected: \"^hello\"", "expected: \"^(hello\"")],
    "job-in-two-stages": [("templates/install.yaml", "jobs: [apply]", "jobs: [apply, prepare]")],
    "duplicate-stage-id": [("templates/install.yaml", "    - id: apply\n      title: Apply\n", "    - id: prepare\n      title: Apply\n")],
    "stage-without-jobs": [("templates/install.yaml", "      jobs: [apply]\n", "      jobs: []\n")],
    "entrypoint-not-in-template": [("pack.yaml", "entrypoint: prepare", "entrypoint: bootstrap")],
    "duplicate-evidence-id": [("jobs/prepare.yaml", "id: greeting_written", "id: marker_present")],
    "invalid-duration": [("jobs/prepare.yaml", "timeout: 2m", "timeout: 2 minutes")],
    "gate-unknown-type": [("templates/install.yaml", "type: approval", "type: vote")],
    "gate-without-options": [("templates/install.yaml", "      options: [proceed, {id: cancel operation, effect: cancel}]\n", "")],
    "after-unknown-job": [("jobs/apply.yaml", "after: [prepare]", "after: [prepare, cleanup]")],
    "yaml-syntax-error": [("jobs/apply.yaml", "  title: Apply\n", "  title: Apply\n   bad: [indent\n")],
    "job-without-evidence": [("jobs/apply.yaml", "    evidence:\n      - id: applied\n        command: systemctl is-active demo\n        expected: active\n", "    evidence: []\n")],
    "param-unknown-type": [("pack.yaml", "      type: string\n      default: hello\n", "      type: colour\n      default: hello\n")],
    "param-missing-type": [("pack.yaml", "      type: string\n      default: hello\n", "      default: hello\n")],
    "param-bad-pattern": [("pack.yaml", "      type: string\n      default: hello\n", "      type: string\n      pattern: \"(hel\"\n      default: hello\n")],
    "param-default-not-of-type": [("pack.yaml", "      type: string\n      default: hello\n", "      type: integer\n      default: hello\n")],
    "job-param-missing-type": [("jobs/prepare.yaml", "      greeting: {}\n", "      greeting: {}\n      colour: {default: blue}\n")],
    "job-param-narrows-untyped": [("jobs/prepare.yaml", "      greeting: {}\n", "      greeting: {pattern: \"h.*\"}\n")],
    "job-param-type-differs": [("jobs/prepare.yaml", "      greeting: {}\n", "      greeting: {type: dns_label}\n")],
    "job-param-default-not-of-type": [("pack.yaml", "      type: string\n      default: hello\n", "      type: dns_label\n      default: hello\n"),
                                      ("jobs/prepare.yaml", "      greeting: {}\n", "      greeting: {default: Hello World}\n")],
    "stage-before-provider": [("templates/install.yaml", "    - id: prepare\n      title: Prepare\n      jobs: [prepare]\n    - id: apply\n      title: Apply\n      jobs: [apply]\n",
                                                         "    - id: apply\n      title: Apply\n      jobs: [apply]\n    - id: prepare\n      title: Prepare\n      jobs: [prepare]\n")],
    "param-bad-item-type": [("pack.yaml", "      type: string\n      default: hello\n", "      type: list\n      items:\n        type: colour\n      default: hello\n")],
    "attribute-unknown-param": [("jobs/prepare.yaml", "{key: demo.prepared, scope: node}", "{key: demo.prepared, scope: node, attributes: {region: \"{region}\"}}")],
}

def write(root, files):
    for name, text in files.items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

here = os.path.dirname(os.path.abspath(__file__))
for d in ("valid", "invalid"):
    shutil.rmtree(os.path.join(here, d), ignore_errors=True)
write(os.path.join(here, "valid", "demo"), BASE)
for case, edits in CASES.items():
    files = dict(BASE)
    for name, old, new in edits:
        if old is None:
            files[name] = new
            continue
        assert old in files[name], (case, name, old)
        files[name] = files[name].replace(old, new, 1)
    write(os.path.join(here, "invalid", case), files)
print(len(CASES), "invalid cases")
