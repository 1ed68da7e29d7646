// Command berth-deploy-check validates Berth's deployment files with the parsers and types the real tools use, so
// that CI catches what `docker compose`, `docker build`, `kubectl apply` and Prometheus would refuse, on a machine
// with none of them. Each subcommand prints one JSON document on stdout and exits 0 when it could run (the
// findings are in the JSON); it exits 2 on a usage or I/O error.
//
//	berth-deploy-check k8s [file|-]              strict-decode every YAML document into the k8s.io/api types
//	berth-deploy-check rules <file>              Prometheus rule groups (plain file or PrometheusRule) via rulefmt
//	berth-deploy-check promql                    a JSON array of PromQL expressions on stdin, parsed
//	berth-deploy-check compose <file> [KEY=VAL…]  load a compose file as docker compose does (compose-go)
//	berth-deploy-check dockerfile <context> [Dockerfile]  stages, CMD, HEALTHCHECK, USER, COPY sources vs .dockerignore
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var (
		result any
		err    error
	)
	args := os.Args[2:]
	switch os.Args[1] {
	case "k8s":
		result, err = checkKubernetes(inputArg(args))
	case "rules":
		if len(args) != 1 {
			usage()
		}
		result, err = checkRules(args[0])
	case "promql":
		result, err = checkPromQL(os.Stdin)
	case "compose":
		if len(args) < 1 {
			usage()
		}
		result, err = checkCompose(args[0], args[1:])
	case "dockerfile":
		if len(args) < 1 || len(args) > 2 {
			usage()
		}
		dockerfile := "Dockerfile"
		if len(args) == 2 {
			dockerfile = args[1]
		}
		result, err = checkDockerfile(args[0], dockerfile)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "berth-deploy-check %s: %v\n", os.Args[1], err)
		os.Exit(2)
	}
	out := json.NewEncoder(os.Stdout)
	out.SetIndent("", "  ")
	if err := out.Encode(result); err != nil {
		fmt.Fprintf(os.Stderr, "berth-deploy-check: %v\n", err)
		os.Exit(2)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: berth-deploy-check k8s [file|-] | rules <file> | promql | compose <file> [KEY=VALUE...] | dockerfile <context> [Dockerfile]")
	os.Exit(2)
}

// inputArg opens the file named by the first argument, or stdin for none or "-".
func inputArg(args []string) io.Reader {
	if len(args) == 0 || args[0] == "-" {
		return os.Stdin
	}
	f, err := os.Open(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "berth-deploy-check: %v\n", err)
		os.Exit(2)
	}
	return f
}

// errorStrings turns errors into their messages (JSON has no error type).
func errorStrings(errs []error) []string {
	out := make([]string, 0, len(errs))
	for _, err := range errs {
		out = append(out, err.Error())
	}
	return out
}
