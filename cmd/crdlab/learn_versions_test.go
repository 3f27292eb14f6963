package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// versions-admission, played by a learner: the CRD's file edited (two
// storage versions refused, then v1 beside v1beta1), the Users rewritten
// by a StorageVersionMigration on 1.37 and later (its file completed), by
// kubectl replace and a patch of storedVersions before; the policy's file
// completed (to warn only, then to deny); each task stays open before its
// right action.
func playVersionsAdmission(t *testing.T, c *cli) {
	l := c.startLesson("versions-admission", "--restart")
	l.waitFor("▶ versions-admission", "Your task")

	task := "v1 served beside v1beta1, and stored"
	crd := c.file("versions-admission", "users-crd.yaml")
	data, err := os.ReadFile(crd)
	if err != nil {
		t.Fatal(err)
	}
	v1 := `  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [userID, groups]
            properties:
              userID: {type: integer, minimum: 1, maximum: 65535}
              groups: {type: array, items: {type: string}}
              email: {type: string}
`
	c.write(crd, string(data)+v1) // two storage versions
	if out := c.kubectlFails("apply", "-f", crd); !strings.Contains(out, "exactly one version marked as storage version") {
		t.Errorf("two storage versions: %s", out)
	}
	l.stillOpen(task)
	c.write(crd, strings.Replace(string(data), "storage: true", "storage: false", 1)+v1)
	c.kubectl("", "apply", "-f", crd)
	l.done(task)
	if out := c.kubectl("", "get", "users.v1beta1.auth.ilinux.io", "admin", "-o", "jsonpath={.spec.password}"); out != "ikubernetes" {
		t.Errorf("admin read as v1beta1, before the migration: password %q", out)
	}

	// The migration: the storage version migrator's on 1.37 and later,
	// the learner's by hand before (the lesson's steps of the lab's minor).
	var version struct{ Minor string }
	if err := json.Unmarshal([]byte(c.kubectl("", "get", "--raw", "/version")), &version); err != nil {
		t.Fatal(err)
	}
	if minor, _ := strconv.Atoi(strings.TrimSuffix(version.Minor, "+")); minor >= 37 {
		task = "every User stored as v1, by the storage version migrator"
		l.stillOpen(task)
		migration := c.file("versions-admission", "users-migration.yaml")
		if out := c.kubectlFails("apply", "-f", migration); !strings.Contains(out, `spec.resource.group: Invalid value: "TODO"`) {
			t.Errorf("the migration's file with its TODOs: %s", out)
		}
		skeleton, err := os.ReadFile(migration)
		if err != nil {
			t.Fatal(err)
		}
		c.kubectl(strings.NewReplacer("group: TODO", "group: auth.ilinux.io", "resource: TODO", "resource: users").Replace(string(skeleton)), "apply", "-f", "-")
		l.done(task)
	} else {
		task = "every User stored as v1, by hand"
		l.stillOpen(task)
		c.kubectl(c.kubectl("", "get", "users", "-o", "json"), "replace", "-f", "-")
		l.stillOpen(task) // storedVersions still lists v1beta1
		c.kubectl("", "patch", "crd", "users.auth.ilinux.io", "--subresource=status", "--type=merge", "-p", `{"status":{"storedVersions":["v1"]}}`)
		l.done(task)
	}
	if out := c.kubectl("", "get", "crd", "users.auth.ilinux.io", "-o", "jsonpath={.status.storedVersions}"); out != `["v1"]` {
		t.Errorf("storedVersions after the migration: %s", out)
	}
	if out := c.kubectl("", "get", "users.v1beta1.auth.ilinux.io", "admin", "-o", "jsonpath={.spec}"); strings.Contains(out, "password") || !strings.Contains(out, "k8s@magedu.com") {
		t.Errorf("admin read as v1beta1, after the migration: %s", out)
	}

	task = "a policy refuses an email outside magedu.com"
	policy := c.file("versions-admission", "user-policy.yaml")
	if out := c.kubectlFails("apply", "-f", policy); !strings.Contains(out, `Unsupported value: "TODO"`) {
		t.Errorf("the policy's file with its TODOs: %s", out)
	}
	skeleton, err := os.ReadFile(policy)
	if err != nil {
		t.Fatal(err)
	}
	filled := func(action string) string {
		return strings.NewReplacer(
			`apiGroups: ["TODO"]`, `apiGroups: ["auth.ilinux.io"]`,
			`operations: ["TODO"]`, `operations: ["CREATE", "UPDATE"]`,
			`resources: ["TODO"]`, `resources: ["users"]`,
			`expression: "TODO"`, `expression: "!has(object.spec.email) || object.spec.email.endsWith('@magedu.com')"`,
			`validationActions: ["TODO"]`, `validationActions: ["`+action+`"]`,
		).Replace(string(skeleton))
	}
	c.kubectl(filled("Warn"), "apply", "-f", "-")
	l.stillOpen(task)
	c.kubectl(filled("Deny"), "apply", "-f", "-")
	// tony is refused, once the apiserver has compiled the policy (the
	// lesson removes it as it ends).
	for deadline := time.Now().Add(lessonWait); ; time.Sleep(250 * time.Millisecond) {
		try := exec.Command("kubectl", "apply", "--dry-run=server", "-f", c.file("versions-admission", "user-tony.yaml"))
		try.Env = append(os.Environ(), "KUBECONFIG="+control.Dir(c.stateDir).Kubeconfig())
		out, err := try.CombinedOutput()
		if err != nil && strings.Contains(string(out), "ValidatingAdmissionPolicy 'user-email-domain' with binding 'user-email-domain' denied request") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl apply of tony, with the policy: %v\n%s", err, out)
		}
	}
	// The lesson's timeline shows the namespace, the CRDs and the
	// APIServices: the learner's policy is not on it.
	l.waitFor("✓ "+task, "done (no write of yours is on the timeline")
	if out, code := l.wait(); code != 0 || !strings.Contains(out, "PASS versions-admission") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
