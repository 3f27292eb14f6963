package main

import (
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/crdlab/crdlab/lab/lang"
)

// localizeHelp makes the help of every command speak the command's
// language (--lang, else the locale): its texts and flags' (localize) and
// cobra's own words (usageTemplate). English is left as cobra writes it.
func localizeHelp(root *cobra.Command, g *globalFlags) {
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if l := g.language(); l != lang.EN {
			localize(c.Root(), l)
		}
		help(c, args)
	})
	cobra.AddTemplateFunc("crdlabFlags", flagUsages)
}

// localize puts the texts of cmd and of the commands under it in l: their
// short and long descriptions, examples and flags' descriptions, cobra's
// help and completion commands' too, and the usage template. A text with
// no translation stays as it is; a translated one is not translated again.
func localize(cmd *cobra.Command, l lang.Lang) {
	if cmd.Parent() == nil {
		cmd.SetUsageTemplate(usageTemplate(l))
	}
	cmd.Short = localizedText(l, cmd.Short)
	cmd.Long = localizedText(l, cmd.Long)
	cmd.Example = localizedText(l, cmd.Example)
	tr := func(f *pflag.Flag) {
		if f.Name == "help" && f.Usage == "help for "+cmd.DisplayName() {
			f.Usage = l.Msgf("help for %s", cmd.DisplayName())
			return
		}
		f.Usage = localizedText(l, f.Usage)
	}
	cmd.Flags().VisitAll(tr)
	cmd.PersistentFlags().VisitAll(tr)
	for _, c := range cmd.Commands() {
		localize(c, l)
	}
}

// usageTemplate is cobra's usage template with its words in l and the
// flags' defaults said in l (crdlabFlags).
func usageTemplate(l lang.Lang) string {
	t := (&cobra.Command{}).UsageTemplate()
	r := strings.NewReplacer(
		"Usage:{{", l.Msg("Usage:")+"{{",
		"\nAliases:\n", "\n"+l.Msg("Aliases:")+"\n",
		"\nExamples:\n", "\n"+l.Msg("Examples:")+"\n",
		"\nAvailable Commands:{{", "\n"+l.Msg("Available Commands:")+"{{",
		"\nAdditional Commands:{{", "\n"+l.Msg("Additional Commands:")+"{{",
		"\nFlags:\n", "\n"+l.Msg("Flags:")+"\n",
		"\nGlobal Flags:\n", "\n"+l.Msg("Global Flags:")+"\n",
		"\nAdditional help topics:{{", "\n"+l.Msg("Additional help topics:")+"{{",
		`Use "{{.CommandPath}} [command] --help" for more information about a command.`,
		l.Msgf(`Use "%s [command] --help" for more information about a command.`, "{{.CommandPath}}"),
		"{{.LocalFlags.FlagUsages", `{{crdlabFlags "`+string(l)+`" .LocalFlags`,
		"{{.InheritedFlags.FlagUsages", `{{crdlabFlags "`+string(l)+`" .InheritedFlags`,
	)
	return r.Replace(t)
}

// flagDefault is pflag's "(default …)" at the end of a flag's line.
var flagDefault = regexp.MustCompile(`\(default (.*)\)$`)

// flagUsages is fs.FlagUsages with each flag's default said in the
// language.
func flagUsages(language string, fs *pflag.FlagSet) string {
	l := lang.Lang(language)
	lines := strings.Split(fs.FlagUsages(), "\n")
	for i, line := range lines {
		if m := flagDefault.FindStringSubmatchIndex(line); m != nil {
			lines[i] = strings.TrimRight(line[:m[0]], " ") + l.Msgf("(default %s)", line[m[2]:m[3]])
		}
	}
	return strings.Join(lines, "\n")
}
