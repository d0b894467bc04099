// Command k8scheck checks Kubernetes manifests offline: each document
// (--- separated) is decoded strictly (no unknown field, every value of
// its field's type) into k8s.io/api's type for its apiVersion and kind,
// and a Job running gopi must keep the rules docs/fleet.md gives: a
// restart policy of Never or OnFailure, activeDeadlineSeconds above the
// container's --timeout, API keys from a Secret (never a literal value),
// and the session folder on a volume.
//
// Usage: go run . FILE...   (in scripts/k8scheck, its own module, so
// gopi's module gains no Kubernetes dependency)
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: k8scheck FILE...")
		os.Exit(2)
	}
	bad := false
	for _, file := range os.Args[1:] {
		errs, err := checkFile(file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", file, err)
			bad = true
			continue
		}
		for _, e := range errs {
			fmt.Fprintf(os.Stderr, "%s: %s\n", file, e)
			bad = true
		}
		if len(errs) == 0 {
			fmt.Printf("%s: ok\n", file)
		}
	}
	if bad {
		os.Exit(1)
	}
}

var docSep = regexp.MustCompile(`(?m)^---\s*$`)

func checkFile(file string) ([]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var errs []string
	n := 0
	for i, doc := range docSep.Split(string(data), -1) {
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		n++
		for _, e := range checkDoc([]byte(doc)) {
			errs = append(errs, fmt.Sprintf("document %d: %s", i+1, e))
		}
	}
	if n == 0 {
		errs = append(errs, "no manifest in the file")
	}
	return errs, nil
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func checkDoc(doc []byte) []string {
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return []string{err.Error()}
	}
	var head struct{ APIVersion, Kind string }
	if err := json.Unmarshal(js, &head); err != nil {
		return []string{err.Error()}
	}
	var obj any
	switch head.APIVersion + " " + head.Kind {
	case "batch/v1 Job":
		obj = &batchv1.Job{}
	case "v1 Secret":
		obj = &corev1.Secret{}
	case "v1 ConfigMap":
		obj = &corev1.ConfigMap{}
	case "v1 PersistentVolumeClaim":
		obj = &corev1.PersistentVolumeClaim{}
	default:
		return []string{fmt.Sprintf("apiVersion %q kind %q: not a kind this checker knows (batch/v1 Job, v1 Secret, ConfigMap, PersistentVolumeClaim)", head.APIVersion, head.Kind)}
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(obj); err != nil {
		return []string{fmt.Sprintf("%s: %v", head.Kind, err)}
	}
	if job, ok := obj.(*batchv1.Job); ok {
		return checkJob(job)
	}
	return nil
}

var timeoutFlag = regexp.MustCompile(`--timeout[= ]([0-9a-z.]+)`)

func checkJob(job *batchv1.Job) []string {
	var errs []string
	name := job.Name
	if name == "" {
		errs = append(errs, "Job: metadata.name is missing")
	}
	spec := job.Spec.Template.Spec
	if p := spec.RestartPolicy; p != corev1.RestartPolicyNever && p != corev1.RestartPolicyOnFailure {
		errs = append(errs, fmt.Sprintf("Job %s: restartPolicy must be Never or OnFailure, not %q", name, p))
	}
	if job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion && job.Spec.Completions == nil {
		errs = append(errs, fmt.Sprintf("Job %s: an Indexed Job needs completions", name))
	}
	volumes := map[string]bool{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = true
	}
	for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		if c.Image == "" {
			errs = append(errs, fmt.Sprintf("container %s: no image", c.Name))
		}
		for _, e := range c.Env {
			if isKeyName(e.Name) && (e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
				errs = append(errs, fmt.Sprintf("container %s: %s must come from a Secret (valueFrom.secretKeyRef), not a literal value", c.Name, e.Name))
			}
		}
		for _, m := range c.VolumeMounts {
			if !volumes[m.Name] {
				errs = append(errs, fmt.Sprintf("container %s: volumeMount %s names no volume of the pod", c.Name, m.Name))
			}
		}
	}
	for _, c := range spec.Containers {
		line := strings.Join(append(append([]string{}, c.Command...), c.Args...), " ")
		if !strings.Contains(line, "run") {
			continue
		}
		m := timeoutFlag.FindStringSubmatch(line)
		if m == nil {
			errs = append(errs, fmt.Sprintf("container %s: gopi run without --timeout", c.Name))
			continue
		}
		timeout, err := time.ParseDuration(m[1])
		if err != nil {
			errs = append(errs, fmt.Sprintf("container %s: --timeout %s: %v", c.Name, m[1], err))
			continue
		}
		if job.Spec.ActiveDeadlineSeconds == nil || time.Duration(*job.Spec.ActiveDeadlineSeconds)*time.Second <= timeout {
			errs = append(errs, fmt.Sprintf("Job %s: activeDeadlineSeconds must be above --timeout %s, so gopi ends the run (and writes its result) before Kubernetes kills the pod", name, timeout))
		}
		if !mountsSessions(c, line) {
			errs = append(errs, fmt.Sprintf("container %s: the session (--session or --session-dir) must be on a mounted volume", c.Name))
		}
	}
	return errs
}

func isKeyName(name string) bool {
	for _, s := range []string{"_API_KEY", "_AUTH_TOKEN", "_OAUTH_TOKEN", "_SECRET_KEY"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

var sessionFlag = regexp.MustCompile(`--session(?:-dir)?[= ]([^ ]+)`)

func mountsSessions(c corev1.Container, line string) bool {
	m := sessionFlag.FindStringSubmatch(line)
	if m == nil {
		return false
	}
	for _, v := range c.VolumeMounts {
		if m[1] == v.MountPath || strings.HasPrefix(m[1], strings.TrimSuffix(v.MountPath, "/")+"/") {
			return true
		}
	}
	return false
}
