package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/fixtures"
	"github.com/crdlab/crdlab/fixtures/migrate"
	"github.com/crdlab/crdlab/lab/lang"
)

func newCRDCommand(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "crd",
		Short: "Work with CustomResourceDefinition manifests",
	}
	migrateCmd := &cobra.Command{
		Use:   "migrate FILE",
		Short: "Turn an apiextensions.k8s.io/v1beta1 CRD into v1, explaining each change",
		Long: `Turn apiextensions.k8s.io/v1beta1 CustomResourceDefinitions, removed in
Kubernetes 1.22 but still in many tutorials (the seed text among them), into
apiextensions.k8s.io/v1, and print them.

What changes, and why, is written as comments at the top of each
manifest: spec.version becomes spec.versions, spec.validation becomes a
schema per version, the schema is made structural (a type at every level,
items for arrays), and where the original left fields free they stay free
(x-kubernetes-preserve-unknown-fields), since v1 prunes unknown fields.
The result is checked with the apiserver's own CRD validation.

FILE may hold several documents; - reads standard input.`,
		Example: `  crdlab crd migrate fixtures/seed/users-crd-with-validation.yaml
  crdlab crd migrate old-crd.yaml | kubectl apply -f -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMigrate(cmd.OutOrStdout(), cmd.InOrStdin(), g.language(), args[0])
		},
	}
	g.addLangFlag(migrateCmd, false)
	cmd.AddCommand(migrateCmd)
	return cmd
}

func runMigrate(out io.Writer, stdin io.Reader, l lang.Lang, file string) error {
	var data []byte
	var err error
	if file == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		return err
	}
	docs := fixtures.Documents(data)
	if len(docs) == 0 {
		return errors.New(l.Msgf("%s: no YAML document", file))
	}
	for i, doc := range docs {
		v1, _, err := migrate.CRDIn(l, doc)
		if err != nil {
			return fmt.Errorf(l.Msg("%s: document %d: %w"), file, i+1, err)
		}
		if i > 0 {
			fmt.Fprintln(out, "---")
		}
		if _, err := out.Write(v1); err != nil {
			return err
		}
	}
	return nil
}
