package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// kubernetesDocument is the verdict on one YAML document of a manifest stream.
type kubernetesDocument struct {
	Index      int    `json:"index"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	// BuiltIn: a kind of the Kubernetes API itself (decoded here); false for custom resources (KEDA, Prometheus
	// Operator), which the caller validates against their CRD's schema.
	BuiltIn bool     `json:"builtIn"`
	Errors  []string `json:"errors"`
}

// checkKubernetes decodes every document with the scheme of k8s.io/client-go (every built-in API group and
// version) in strict mode: an unknown or duplicated field, or a value of the wrong type, is an error, as
// `kubectl apply --validate=strict` reports it.
func checkKubernetes(in io.Reader) ([]kubernetesDocument, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	decoder := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()

	reader := utilyaml.NewYAMLReader(bufio.NewReader(in))
	docs := []kubernetesDocument{}
	for index := 0; ; index++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(raw))) == 0 {
			index--
			continue
		}
		doc := kubernetesDocument{Index: index, Errors: []string{}}
		var meta struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal(raw, &meta); err != nil {
			doc.Errors = append(doc.Errors, fmt.Sprintf("not YAML: %v", err))
			docs = append(docs, doc)
			continue
		}
		doc.APIVersion, doc.Kind, doc.Name = meta.APIVersion, meta.Kind, meta.Metadata.Name
		gvk := schema.FromAPIVersionAndKind(meta.APIVersion, meta.Kind)
		if meta.APIVersion == "" || meta.Kind == "" {
			doc.Errors = append(doc.Errors, "apiVersion and kind are required")
		} else if scheme.Recognizes(gvk) {
			doc.BuiltIn = true
			if _, _, err := decoder.Decode(raw, nil, nil); err != nil {
				doc.Errors = append(doc.Errors, err.Error())
			}
		} else if isBuiltInGroup(scheme, gvk.Group) {
			// A built-in group with a kind or version this Kubernetes does not serve (a typo, or a removed version).
			doc.BuiltIn = true
			doc.Errors = append(doc.Errors, fmt.Sprintf("no kind %q is registered for version %q of the Kubernetes API", gvk.Kind, gvk.GroupVersion()))
		}
		docs = append(docs, doc)
	}
	return docs, nil
}

// isBuiltInGroup tells whether the group belongs to the Kubernetes API (so an unknown kind in it is a mistake, not
// a custom resource).
func isBuiltInGroup(scheme *runtime.Scheme, group string) bool {
	for _, gv := range scheme.PrioritizedVersionsAllGroups() {
		if gv.Group == group {
			return true
		}
	}
	return false
}

// stripComments drops comment-only lines, so a document holding nothing but comments counts as empty.
func stripComments(raw []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.Split(raw, []byte("\n")) {
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 || trimmed[0] == '#' {
			continue
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}
