package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

type dockerfileResult struct {
	Stages []dockerStage `json:"stages"`
	// Warnings: the parser's and BuildKit's Dockerfile lint rules (what `docker build --check` reports).
	Warnings []string `json:"warnings"`
	Errors   []string `json:"errors"`
	// ContextFiles: how many files the build context holds once .dockerignore is applied; ContextPaths: which.
	ContextFiles int      `json:"contextFiles"`
	ContextPaths []string `json:"contextPaths"`
}

type dockerStage struct {
	Name string `json:"name"`
	// Base: the FROM argument with the global ARG defaults substituted.
	Base        string       `json:"base"`
	Cmd         []string     `json:"cmd"`
	CmdIsShell  bool         `json:"cmdIsShell"`
	Entrypoint  []string     `json:"entrypoint"`
	Healthcheck []string     `json:"healthcheck"`
	User        string       `json:"user"`
	Expose      []string     `json:"expose"`
	Env         []string     `json:"env"`
	Copies      []dockerCopy `json:"copies"`
}

type dockerCopy struct {
	From    string   `json:"from"`
	Sources []string `json:"sources"`
	Dest    string   `json:"dest"`
	// Matches: for a copy from the build context, how many context paths each source matches (0 = the build fails).
	Matches []int `json:"matches,omitempty"`
}

// checkDockerfile parses the Dockerfile with BuildKit's own parser and instruction reader, runs its lint rules,
// and checks every COPY/ADD source against the build context as BuildKit would send it (.dockerignore applied with
// the same pattern matcher).
func checkDockerfile(contextDir, dockerfileName string) (*dockerfileResult, error) {
	dockerfilePath := dockerfileName
	if !filepath.IsAbs(dockerfilePath) {
		dockerfilePath = filepath.Join(contextDir, dockerfileName)
	}
	f, err := os.Open(dockerfilePath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	result := &dockerfileResult{Stages: []dockerStage{}, Warnings: []string{}, Errors: []string{}}

	parsed, err := parser.Parse(f)
	if err != nil {
		result.Errors = append(result.Errors, err.Error())
		return result, nil
	}
	for _, warning := range parsed.Warnings {
		result.Warnings = append(result.Warnings, fmt.Sprintf("%s (%s)", warning.Short, warning.URL))
	}
	lint := linter.New(&linter.Config{Warn: func(rule, description, url, message string, location []parser.Range) {
		line := 0
		if len(location) > 0 {
			line = location[0].Start.Line
		}
		result.Warnings = append(result.Warnings, fmt.Sprintf("line %d: %s: %s", line, rule, message))
	}})
	stages, metaArgs, err := instructions.Parse(parsed.AST, lint)
	if err != nil {
		result.Errors = append(result.Errors, err.Error())
		return result, nil
	}
	globals := map[string]string{}
	for _, arg := range metaArgs {
		for _, kv := range arg.Args {
			if kv.Value != nil {
				globals[kv.Key] = *kv.Value
			}
		}
	}

	contextFiles, err := buildContextFiles(contextDir)
	if err != nil {
		return nil, err
	}
	result.ContextFiles = len(contextFiles)
	result.ContextPaths = contextFiles

	for _, stage := range stages {
		out := dockerStage{Name: stage.Name, Base: expandGlobals(stage.BaseName, globals), Copies: []dockerCopy{}, Expose: []string{}, Env: []string{}}
		for _, command := range stage.Commands {
			switch c := command.(type) {
			case *instructions.CmdCommand:
				out.Cmd, out.CmdIsShell = c.CmdLine, c.PrependShell
			case *instructions.EntrypointCommand:
				out.Entrypoint = c.CmdLine
			case *instructions.HealthCheckCommand:
				if c.Health != nil {
					out.Healthcheck = c.Health.Test
				}
			case *instructions.UserCommand:
				out.User = c.User
			case *instructions.ExposeCommand:
				out.Expose = append(out.Expose, c.Ports...)
			case *instructions.EnvCommand:
				for _, kv := range c.Env {
					out.Env = append(out.Env, kv.Key+"="+kv.Value)
				}
			case *instructions.CopyCommand:
				out.Copies = append(out.Copies, describeCopy(c.From, c.SourcePaths, c.DestPath, contextFiles))
			case *instructions.AddCommand:
				out.Copies = append(out.Copies, describeCopy("", c.SourcePaths, c.DestPath, contextFiles))
			}
		}
		result.Stages = append(result.Stages, out)
	}
	return result, nil
}

func describeCopy(from string, sources []string, dest string, contextFiles []string) dockerCopy {
	copied := dockerCopy{From: from, Sources: sources, Dest: dest}
	if from != "" {
		return copied
	}
	for _, source := range sources {
		copied.Matches = append(copied.Matches, countContextMatches(source, contextFiles))
	}
	return copied
}

var globalReference = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)

func expandGlobals(value string, globals map[string]string) string {
	return globalReference.ReplaceAllStringFunc(value, func(reference string) string {
		name := globalReference.FindStringSubmatch(reference)[1]
		if v, ok := globals[name]; ok {
			return v
		}
		return reference
	})
}

// buildContextFiles lists the files of the build context (slash paths relative to it) that .dockerignore lets
// through, with BuildKit's matcher: a path is left out when it or a parent matches, unless a later `!` pattern
// brings it back.
func buildContextFiles(contextDir string) ([]string, error) {
	var patterns []string
	if f, err := os.Open(filepath.Join(contextDir, ".dockerignore")); err == nil {
		patterns, err = ignorefile.ReadAll(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf(".dockerignore: %w", err)
		}
	}
	matcher, err := patternmatcher.New(patterns)
	if err != nil {
		return nil, fmt.Errorf(".dockerignore: %w", err)
	}
	files := []string{}
	type parentInfo = patternmatcher.MatchInfo
	infos := map[string]parentInfo{}
	err = filepath.WalkDir(contextDir, func(full string, entry fs.DirEntry, walkErr error) error {
		if walkErr != nil {
			return walkErr
		}
		rel, err := filepath.Rel(contextDir, full)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		excluded, info, err := matcher.MatchesUsingParentResults(rel, infos[path.Dir(rel)])
		if err != nil {
			return err
		}
		if entry.IsDir() {
			// An excluded folder is skipped unless a `!` pattern may bring back something inside it.
			if excluded && !mayReinclude(matcher, rel) {
				return filepath.SkipDir
			}
			infos[rel] = info
			return nil
		}
		if !excluded {
			files = append(files, rel)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

func mayReinclude(matcher *patternmatcher.PatternMatcher, dir string) bool {
	for _, pattern := range matcher.Patterns() {
		if pattern.Exclusion() && (strings.HasPrefix(pattern.String(), dir+"/") || strings.ContainsAny(pattern.String(), "*?[")) {
			return true
		}
	}
	return false
}

// countContextMatches counts the context files a COPY source names: the file itself, the files under a folder,
// or those a wildcard matches (BuildKit's rules for COPY sources).
func countContextMatches(source string, contextFiles []string) int {
	clean := strings.TrimPrefix(path.Clean("/"+source), "/")
	count := 0
	for _, file := range contextFiles {
		switch {
		case clean == "" || clean == ".":
			count++
		case file == clean || strings.HasPrefix(file, clean+"/"):
			count++
		default:
			if ok, _ := path.Match(clean, file); ok {
				count++
			} else if ok, _ := path.Match(clean, firstSegments(file, strings.Count(clean, "/")+1)); ok {
				count++
			}
		}
	}
	return count
}

func firstSegments(file string, n int) string {
	parts := strings.SplitN(file, "/", n+1)
	if len(parts) > n {
		parts = parts[:n]
	}
	return strings.Join(parts, "/")
}
