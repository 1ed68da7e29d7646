package main

import (
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/compose-spec/compose-go/v2/cli"
)

type composeResult struct {
	Errors []string `json:"errors"`
	// Project: the model after interpolation, merges, normalisation and the consistency checks, as
	// `docker compose config --format json` prints it.
	Project json.RawMessage `json:"project,omitempty"`
}

// checkCompose loads a compose file with compose-go, the library docker compose itself uses: YAML anchors and
// merge keys, ${VAR:-default} interpolation with only the given variables (not this process's environment, so the
// result does not depend on the machine), validation against the Compose specification's schema, then the
// consistency checks (services, volumes, configs and networks referred to exist; depends_on has no cycle).
func checkCompose(file string, env []string) (*composeResult, error) {
	result := &composeResult{Errors: []string{}}
	absolute, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	options, err := cli.NewProjectOptions([]string{absolute},
		cli.WithWorkingDirectory(filepath.Dir(absolute)),
		cli.WithEnv(env),
		cli.WithInterpolation(true),
		cli.WithNormalization(true),
		cli.WithConsistency(true),
		cli.WithResolvedPaths(false),
	)
	if err != nil {
		return nil, err
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		result.Errors = append(result.Errors, err.Error())
		return result, nil
	}
	model, err := project.MarshalJSON()
	if err != nil {
		return nil, err
	}
	result.Project = model
	return result, nil
}
