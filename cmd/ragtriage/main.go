// Command ragtriage judges RAG answers from the command line.
//
// Usage:
//
//	ragtriage judge [-profile FILE] [-workers N] [FILE|-]   judge a JSON Lines dataset
//	ragtriage selftest [-v] [-profile FILE]                 run the planted cases
//	ragtriage eval -dataset FILE -out report.json [flags]    replay labeled data, write a deployment report
//	ragtriage calibrate -dataset FILE -out profile.json      fit a calibration profile with risk-bounded thresholds
//	ragtriage export -records FILE [-uncertain]              write recorded requests as dataset rows to label
//	ragtriage version                                        print the module, profile, features and Go versions
//	ragtriage help [COMMAND|labels]                          show help, or the label format
//
// Flags may also follow judge's input file ("ragtriage judge data.jsonl
// -workers 4").
//
// Run "ragtriage help COMMAND" for details.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// command is one subcommand. Its run function gets the arguments after the
// subcommand's name and returns the exit status.
type command struct {
	name    string
	summary string
	usage   string // the full help text
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands lists the subcommands in the order help shows them. It is filled
// in init to break the cycle through help.
var commands []*command

func init() {
	commands = []*command{judgeCommand, selftestCommand, evalCommand, calibrateCommand, exportCommand, versionCommand}
}

const mainUsage = `ragtriage judges RAG answers: whether each answer is grounded in the retrieved
contexts, relevant to the question, and why it fails when it does.

Usage:

	ragtriage <command> [flags] [arguments]

Commands:
%s
Run "ragtriage help <command>" for a command's flags, "ragtriage help labels"
for the label format of datasets; "ragtriage -version" or "ragtriage
--version" is "ragtriage version".

Exit status: 0 on success, 1 when the command found a failure (a bad input
line, a failing selftest case) or could not run, 2 on a usage error.
`

func printMainUsage(w io.Writer) {
	var b strings.Builder
	for _, c := range commands {
		fmt.Fprintf(&b, "\t%-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(&b, "\t%-10s %s\n", "help", "show help for a command")
	fmt.Fprintf(w, mainUsage, b.String())
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run is the whole program: it dispatches to a subcommand and returns the
// exit status. It touches no global state besides what the subcommands read
// (the test hooks in judge.go), so tests call it directly.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printMainUsage(stderr)
		return 2
	}
	switch name := args[0]; name {
	case "help", "-h", "-help", "--help":
		if name == "help" && len(args) > 1 && args[1] == "labels" {
			fmt.Fprint(stdout, labelsHelpText)
			return 0
		}
		if name == "help" && len(args) > 1 {
			c := lookup(args[1])
			if c == nil {
				fmt.Fprintf(stderr, "ragtriage help: unknown command %q\n", args[1])
				return 2
			}
			fmt.Fprint(stdout, c.usage)
			return 0
		}
		printMainUsage(stdout)
		return 0
	case "-version", "--version":
		return versionCommand.run(args[1:], stdin, stdout, stderr)
	default:
		c := lookup(name)
		if c == nil {
			fmt.Fprintf(stderr, "ragtriage: unknown command %q\nRun \"ragtriage help\" for usage.\n", name)
			return 2
		}
		return c.run(args[1:], stdin, stdout, stderr)
	}
}
