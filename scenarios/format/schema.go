package format

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"
)

// durationPattern is what time.ParseDuration accepts (without a sign).
const durationPattern = `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`

// JSONSchema returns the JSON schema of the scenario format, generated from
// its Go types, for editors (docs/scenario.schema.json).
//
// github.com/invopop/jsonschema reflects the types: properties from the
// json tags, required fields (those without omitempty), additionalProperties
// false, the types of the $defs referenced. Configured here: the
// descriptions from the doc tags (LookupComment), Duration as a string of
// durationPattern (Mapper), and the scenario itself at the root; then
// tagKeywords adds what the reflector does not read, from the tags the
// format reference reads too (fieldsOfType): enums (enum tag) and a step's
// exactly one action (action tag, a oneOf).
func JSONSchema() ([]byte, error) {
	r := &jsonschema.Reflector{
		ExpandedStruct: true,
		LookupComment: func(t reflect.Type, field string) string {
			if field == "" {
				return "" // the schema describes fields, not types
			}
			f, _ := t.FieldByName(field)
			return f.Tag.Get("doc")
		},
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if t != reflect.TypeFor[Duration]() {
				return nil
			}
			return &jsonschema.Schema{Type: "string", Pattern: durationPattern, Description: "A Go duration: 500ms, 30s, 1m30s."}
		},
	}
	s := r.ReflectFromType(reflect.TypeFor[Scenario]())
	s.ID = "https://crdlab.dev/schemas/scenario.schema.json"
	s.Title = "crdlab scenario"
	s.Description = "A scripted, narrated run of Kubernetes control loops: crdlab scenario run FILE."
	for _, t := range structTypes() {
		st := s
		if t != reflect.TypeFor[Scenario]() {
			st = s.Definitions[t.Name()]
		}
		if st == nil {
			return nil, fmt.Errorf("the schema has no definition of %s", t.Name())
		}
		if err := tagKeywords(t, st); err != nil {
			return nil, err
		}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// tagKeywords adds to st, t's schema, the enums of t's enum tags (on the
// items of a list) and, if t has fields tagged action, a oneOf that
// requires exactly one of them.
func tagKeywords(t reflect.Type, st *jsonschema.Schema) error {
	var one []*jsonschema.Schema
	for _, f := range fieldsOfType(t) {
		p, ok := st.Properties.Get(f.name)
		if !ok {
			return fmt.Errorf("the schema of %s has no property %s", t.Name(), f.name)
		}
		if f.enum != nil {
			e := make([]any, len(f.enum))
			for i, v := range f.enum {
				e[i] = v
			}
			if p.Type == "array" {
				p.Items = &jsonschema.Schema{Type: "string", Enum: e}
			} else {
				p.Enum = e
			}
		}
		if f.action {
			one = append(one, &jsonschema.Schema{Required: []string{f.name}})
		}
	}
	st.OneOf = one
	return nil
}

// structTypes returns the struct types of the format, from Scenario on.
func structTypes() []reflect.Type {
	var out []reflect.Type
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t == reflect.TypeFor[Duration]() || seen[t] {
			return
		}
		seen[t] = true
		out = append(out, t)
		for _, f := range fieldsOfType(t) {
			walk(f.typ)
		}
	}
	walk(reflect.TypeFor[Scenario]())
	return out
}

type field struct {
	name, doc string
	required  bool
	enum      []string
	action    bool
	typ       reflect.Type
}

func fieldsOfType(t reflect.Type) []field {
	var out []field
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if opts == "inline" {
			out = append(out, fieldsOfType(f.Type)...)
			continue
		}
		fd := field{name: name, doc: f.Tag.Get("doc"), required: !strings.Contains(opts, "omitempty"),
			action: f.Tag.Get("action") == "true", typ: f.Type}
		if e := f.Tag.Get("enum"); e != "" {
			fd.enum = strings.Split(e, ",")
		}
		out = append(out, fd)
	}
	return out
}

// FormatReference returns the reference of the scenario format in Markdown,
// generated from its Go types (docs/scenario-format.md).
func FormatReference() string {
	var b strings.Builder
	b.WriteString(`# Scenario format reference

<!-- Generated from the Go types in scenarios/types.go by
     go test ./scenarios -run TestGeneratedDocs -args -update
     (make generate). Do not edit by hand. -->

A scenario is one YAML document. Decoding is strict: an unknown field, a
wrong type, a bad duration or an unknown step is an error naming the file
and line (` + "`crdlab scenario lint FILE`" + `). Editors can check files against
[scenario.schema.json](scenario.schema.json) (for example with the YAML
language server: ` + "`# yaml-language-server: $schema=…/docs/scenario.schema.json`" + `).

In strings of objects, object references and files that apply steps read,
` + "`${NAMESPACE}`" + ` is replaced by the scenario's namespace. Objects without a
namespace go into the scenario's namespace.

## Steps of some Kubernetes minors

A step with ` + "`kubernetes:`" + ` runs only on the minors of its range, as the
apiserver's ` + "`/version`" + ` says (asked once per run): one or two bounds, each
` + "`>=`, `>`, `<=`, `<` or `=`" + ` and a minor, separated by a comma (` + "`\">=1.37\"`" + `,
` + "`\"<1.37\"`, `\">=1.36, <1.38\"`" + `). On another minor the run leaves the step out, as
if it were not written; the other steps keep their numbers. Where Kubernetes
changed between minors, a scenario says and checks each world on its own
minor (versions-admission: a StorageVersionMigration on 1.37 and later, by
hand on 1.35 and 1.36), each task with a name of its own. A range that is not
one, or that holds no minor crdlab serves, is an error naming the file, line
and field. ` + "`spec.minKubernetes`" + ` skips a whole scenario instead.
` + "`crdlab scenario explain`" + ` reads no cluster (its reader may have no lab yet,
and the minor is chosen when one starts: ` + "`crdlab up --kubernetes`" + `), so it
lists every step, each of some minors marked ` + "`(Kubernetes >=1.37)`" + `, and says
which minor ` + "`crdlab up`" + ` starts.

` + "```yaml" + `
- narrate: On 1.37 and later the storage version migrator does it.
  kubernetes: ">=1.37"
- narrate: On 1.35 and 1.36 you do it by hand.
  kubernetes: "<1.37"
` + "```" + `

## Text in Chinese

A scenario speaks English and, optionally, Chinese (` + "`crdlab scenario run --lang zh`" + `,
or a Chinese locale: ` + "`LANG=zh_CN.UTF-8`" + `). Each level that has text a learner
reads gets an optional ` + "`zh:`" + ` beside it, holding the Chinese versions of that
level's text fields under the same names:

| where | text fields | its ` + "`zh`" + ` |
|---|---|---|
| ` + "`spec`" + ` | ` + "`title`, `concept`, `explanation`" + ` | [SpecZH](#speczh) |
| a step | ` + "`name`, `narrate`" + ` | [StepZH](#stepzh) |

` + "```yaml" + `
spec:
  title: A deleted Pod comes back
  zh:
    title: 删掉的 Pod 又回来了
    concept: "控制器 / 和解循环: 控制器比较期望状态与当前状态，并把两者之间的差距补上"
  steps:
  - narrate: |
      Now delete one of its Pods, picked at random.
    zh:
      narrate: |
        现在随机删掉其中一个 Pod。
  - name: 3 Pods Running again
    zh: {name: 又有 3 个 Pod 处于 Running}
    expect: {resource: {apiVersion: v1, kind: Pod, selector: app=web}, cel: objects.size() == 3}
` + "```" + `

No other field is read by a learner: ` + "`expectError.message`" + ` is text the
apiserver's error must contain, so it stays as the apiserver writes it; a
step without a name is described by crdlab in the learner's language
(` + "`apply deployment/web`" + `, ` + "`应用 deployment/web`" + `). Keep Kubernetes' identifiers (kinds,
fields, kubectl commands) in English inside the Chinese text.

A text missing from ` + "`zh`" + ` is shown in English, never empty, so a scenario
written only in English runs under ` + "`--lang zh`" + ` as it is. Loading stays
strict: an unknown key inside ` + "`zh`" + ` is an error with its file and line, and so
is the Chinese of a text the scenario does not have (` + "`zh.name`" + ` without
` + "`name`" + `, ` + "`zh.narrate`" + ` on a step that is not a narrate step). The built-in
scenarios have every text in both languages (a test checks it).

## Lessons and the task step

A lesson (` + "`kind: Lesson`" + `, run by ` + "`crdlab learn`" + `, [learn.md](learn.md)) is a
scenario whose **task** steps wait for the learner. A task has a ` + "`text`" + ` (what
to do, with the learner's own kubectl, editor or code), a ` + "`check`" + ` (a list of
conditions, all of which must hold), and ` + "`hints`" + `, shown one at a time when the
learner asks (Enter, or ` + "`crdlab learn hint`" + `) or after ` + "`hintAfter`" + ` (default 3m).
The check is tried every half second, with no deadline; until it holds the
lesson says what it still misses: the failing condition's ` + "`text`" + ` (what it
wants, in the learner's words), then what it found. When it holds, the lesson
shows what the learner's writes did: the timeline's lines of the task from the
learner's first write on. In a task's text and hints, ` + "`${FILES}`" + ` is the folder
of the lesson's files (` + "`<state-dir>/learn/NAME`" + `) and ` + "`${NAMESPACE}`" + ` the learner's
namespace. A task's Chinese is in the step's ` + "`zh.task`" + ` (` + "`text`" + `, and ` + "`hints`" + ` and
` + "`check`" + `, the texts of the conditions, in the same order). A task in a scenario
(` + "`kind: Scenario`" + `) is an error: a scenario runs by itself.

A condition is one of:

- ` + "`expect`" + `: objects match, as the step of that name. It also reads what the
  learner wrote, where the outcome alone cannot tell a right answer from a
  wrong one: the CRD's stored ` + "`spec.names.shortNames`" + `, its ` + "`scope`" + `.
- ` + "`expectError`" + `: a write the learner's work must **refuse**, tried as a
  server-side dry run (nothing is stored, no controller sees it). Say what
  the refusal must be about with ` + "`causes`" + `: a field path and, if it matters, a
  reason, matched against the apiserver's ` + "`status.details.causes`" + `. A cause on
  the field, inside it or on a level above it matches (an
  ` + "`x-kubernetes-validations`" + ` rule reports the level it is written at), so a
  ` + "`required`" + ` and a CEL rule that requires the same field both pass. Do not
  match message text: it changes with the Kubernetes version and with how a
  rule is written.
- ` + "`expectAccepted`" + `: a write the learner's work must still **accept**, tried as
  a server-side dry run: the other side, which an over-strict answer (a
  maximum too low, a field made a string) fails.
- ` + "`expectRestored`" + `: an object the learner's controller keeps: the check deletes
  it (when it exists) and it must come back, as a new object, within
  ` + "`within`" + ` (10s), with no restart; each time it comes back later (a
  controller that makes it only when it starts), the check deletes it
  again. It tells a controller that watches what it owns (` + "`Owns`" + `) from one
  that does not.

Check both sides where both exist: a refused write beside an accepted one
that differs from it only where the rule bites (userID 65536 refused, 65535
accepted), so that each condition tells a right answer from a wrong one.
Each built-in lesson has a table of answers (` + "`scenarios/lessons/_answers/NAME.yaml`" + `),
right ones written differently and wrong ones of each kind, played against a
real lab by the scenarios suite. Where a task waits for the learner's
controller (a status, a finalizer), the table's steps write what that
controller would: a ` + "`patch`" + ` with ` + "`subresource: status`" + `, a finalizer taken off.
An ` + "`expect`" + ` with ` + "`absent`" + ` names an object a finalizer holds with its finalizers
(a User that stays Terminating).

A lesson's spec also gives its place on the course map (` + "`crdlab learn`" + ` with no
argument, the web UI's course map): ` + "`order`" + `, ` + "`after`" + ` (the lessons to do
first), ` + "`minutes`" + ` and ` + "`seed`" + ` (the section of the seed text it teaches, in the
seed's own words). Loading the course checks that each ` + "`after`" + ` names one of its
lessons and that no lesson comes, through ` + "`after`" + `, after itself.

` + "```yaml`" + `
- name: userID at most 65535, groups required
  zh:
    name: userID 不超过 65535，groups 必填
    task:
      text: 编辑 ${FILES}/users-crd.v1.yaml 的 schema……
      hints: [……]
      check: [userID 大于 65535 的 User 会被拒绝。, 合法的 User 仍然可以写入。]
  task:
    text: Edit the schema in ${FILES}/users-crd.v1.yaml so that ...
    hints: [The seed's users-crd-with-validation.yaml has these rules.]
    check:
    - text: A User whose userID is above 65535 is refused.
      expectError:
        apply:
          object:
            apiVersion: auth.ilinux.io/v1beta1
            kind: User
            metadata: {name: crdlab-check-tony}
            spec: {userID: 65536, groups: [developers]}
        code: 422
        causes: [{field: spec.userID}]
    - text: A valid User is still accepted.
      expectAccepted:
        apply:
          object:
            apiVersion: auth.ilinux.io/v1beta1
            kind: User
            metadata: {name: crdlab-check-alice}
            spec: {userID: 65535, groups: [developers]}
` + "```" + `

`)
	seen := map[reflect.Type]bool{}
	var queue []reflect.Type
	queue = append(queue, reflect.TypeFor[Scenario]())
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		if seen[t] {
			continue
		}
		seen[t] = true
		fmt.Fprintf(&b, "## %s\n\n", t.Name())
		if t == reflect.TypeFor[Step]() {
			b.WriteString("A step has exactly one action (marked *action*), and optionally a name and a timeout.\n\n")
		}
		b.WriteString("| field | type | description |\n|---|---|---|\n")
		for _, f := range fieldsOfType(t) {
			typ, next := typeName(f.typ)
			if next != nil && !seen[next] {
				queue = append(queue, next)
			}
			doc := f.doc
			if f.required {
				doc = "**Required.** " + doc
			}
			if f.action {
				doc = "*action* " + doc
			}
			if f.enum != nil && f.typ.Kind() != reflect.Slice {
				doc += " One of: " + "`" + strings.Join(f.enum, "`, `") + "`."
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.name, typ, strings.ReplaceAll(doc, "|", `\|`))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// typeName names a field's type for the reference, and returns the struct
// type to document next, if any.
func typeName(t reflect.Type) (string, reflect.Type) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[Duration]():
		return "duration", nil
	case t.Kind() == reflect.Struct:
		return "[" + t.Name() + "](#" + strings.ToLower(t.Name()) + ")", t
	case t.Kind() == reflect.Slice:
		inner, next := typeName(t.Elem())
		return "list of " + inner, next
	case t.Kind() == reflect.Map:
		return "object", nil
	case t.Kind() == reflect.Interface:
		return "any", nil
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		return "integer", nil
	}
	return t.Kind().String(), nil
}
