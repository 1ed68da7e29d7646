package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
	"sigs.k8s.io/yaml"
)

type ruleGroupsResult struct {
	// Format: "PrometheusRule" (the operator's resource, whose spec holds the groups) or "rules file".
	Format string   `json:"format"`
	Groups []string `json:"groups"`
	Rules  []string `json:"rules"`
	Errors []string `json:"errors"`
}

// checkRules validates rule groups with Prometheus' own loader (rulefmt: unknown fields, durations, label and
// annotation templates, and every expression through the PromQL parser), as `promtool check rules` does.
func checkRules(path string) (*ruleGroupsResult, error) {
	content, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	result := &ruleGroupsResult{Format: "rules file", Groups: []string{}, Rules: []string{}, Errors: []string{}}
	var envelope struct {
		APIVersion string          `json:"apiVersion"`
		Kind       string          `json:"kind"`
		Spec       json.RawMessage `json:"spec"`
	}
	if err := yaml.Unmarshal(content, &envelope); err != nil {
		result.Errors = append(result.Errors, err.Error())
		return result, nil
	}
	if envelope.Kind == "PrometheusRule" {
		result.Format = "PrometheusRule"
		// rulefmt reads YAML; JSON is YAML.
		content = envelope.Spec
		if len(content) == 0 {
			result.Errors = append(result.Errors, "PrometheusRule has no spec")
			return result, nil
		}
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	groups, errs := rulefmt.Parse(content, false, model.UTF8Validation, parser.NewParser(parser.Options{}), logger)
	result.Errors = append(result.Errors, errorStrings(errs)...)
	if groups != nil {
		for _, group := range groups.Groups {
			result.Groups = append(result.Groups, group.Name)
			for _, rule := range group.Rules {
				name := rule.Alert
				if name == "" {
					name = rule.Record
				}
				result.Rules = append(result.Rules, name)
			}
		}
	}
	return result, nil
}

type promqlResult struct {
	Expr    string   `json:"expr"`
	Error   string   `json:"error,omitempty"`
	Metrics []string `json:"metrics"`
}

// checkPromQL parses each expression of a JSON array and lists the metric names it selects.
func checkPromQL(in io.Reader) ([]promqlResult, error) {
	var exprs []string
	if err := json.NewDecoder(in).Decode(&exprs); err != nil {
		return nil, fmt.Errorf("stdin must be a JSON array of strings: %w", err)
	}
	p := parser.NewParser(parser.Options{})
	results := make([]promqlResult, 0, len(exprs))
	for _, expr := range exprs {
		result := promqlResult{Expr: expr, Metrics: []string{}}
		parsed, err := p.ParseExpr(expr)
		if err != nil {
			result.Error = err.Error()
		} else {
			seen := map[string]bool{}
			parser.Inspect(parsed, func(node parser.Node, _ []parser.Node) error {
				if selector, ok := node.(*parser.VectorSelector); ok && selector.Name != "" && !seen[selector.Name] {
					seen[selector.Name] = true
					result.Metrics = append(result.Metrics, selector.Name)
				}
				return nil
			})
		}
		results = append(results, result)
	}
	return results, nil
}
