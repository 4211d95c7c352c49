// Package deploy holds no code: its tests check the job definitions under
// deploy/ against the types of the APIs that take them, decoded strictly
// (an unknown or misspelt field fails), and the Dockerfile's stages. It is
// a module of its own so that the Kubernetes, AWS Batch, Cloud Run and
// BuildKit modules stay out of aiperf's build. Run by `make deploy-lint`.
package deploy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/batch"
	batchtypes "github.com/aws/aws-sdk-go-v2/service/batch/types"
	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	run "google.golang.org/api/run/v1"
	yamlv3 "gopkg.in/yaml.v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// documents splits a multi-document YAML file.
func documents(t *testing.T, path string) [][]byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var docs [][]byte
	for _, d := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(raw), -1) {
		if strings.TrimSpace(regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAllString(d, "")) != "" {
			docs = append(docs, []byte(d))
		}
	}
	return docs
}

// envOf maps a container's env names to their literal values ("" for a
// valueFrom).
func envOf(env []corev1.EnvVar) map[string]string {
	m := map[string]string{}
	for _, e := range env {
		m[e.Name] = e.Value
	}
	return m
}

// secretLike names settings that must come from a secret, never a literal.
var secretLike = regexp.MustCompile(`(?i)(API_KEY|SECRET|TOKEN|PASSWORD|ACCESS_KEY)`)

func TestKubernetesIndexedJob(t *testing.T) {
	docs := documents(t, "kubernetes/indexed-job.yaml")
	var jobs int
	for i, doc := range docs {
		var meta struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		switch meta.APIVersion + "/" + meta.Kind {
		case "v1/ServiceAccount":
			var sa corev1.ServiceAccount
			if err := yaml.UnmarshalStrict(doc, &sa); err != nil {
				t.Fatalf("document %d (ServiceAccount): %v", i, err)
			}
		case "batch/v1/Job":
			jobs++
			var job batchv1.Job
			if err := yaml.UnmarshalStrict(doc, &job); err != nil {
				t.Fatalf("document %d (Job): %v", i, err)
			}
			checkIndexedJob(t, &job)
		default:
			t.Errorf("document %d: unexpected %s %s", i, meta.APIVersion, meta.Kind)
		}
	}
	if jobs != 1 {
		t.Fatalf("%d Jobs, want 1", jobs)
	}
}

func checkIndexedJob(t *testing.T, job *batchv1.Job) {
	spec := job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode is not Indexed")
	}
	if spec.Completions == nil || spec.Parallelism == nil || *spec.Completions != *spec.Parallelism || *spec.Completions < 2 {
		t.Errorf("completions and parallelism must be equal and at least 2 (the barrier waits for every shard)")
	}
	pod := spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q, want Never", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	env := envOf(c.Env)
	if spec.Completions != nil && env["AIPERF_SHARD_COUNT"] != strconv.Itoa(int(*spec.Completions)) {
		t.Errorf("AIPERF_SHARD_COUNT %q, want completions %d", env["AIPERF_SHARD_COUNT"], *spec.Completions)
	}
	checkShardEnv(t, env)
	for _, e := range c.Env {
		if secretLike.MatchString(e.Name) && (e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
			t.Errorf("env %s must come from a Secret (secretKeyRef)", e.Name)
		}
		if e.Name == "AIPERF_RUN_GROUP" && (e.ValueFrom == nil || e.ValueFrom.FieldRef == nil) {
			t.Errorf("AIPERF_RUN_GROUP should come from the Job's uid (fieldRef), so every run is a new group")
		}
	}
	if !slices.Equal(c.Args, []string{"profile"}) {
		t.Errorf("args %q, want [profile]", c.Args)
	}
}

// checkShardEnv checks the settings every sharded definition needs.
func checkShardEnv(t *testing.T, env map[string]string) {
	t.Helper()
	if env["AIPERF_SHARD_BARRIER"] != "true" {
		t.Errorf("AIPERF_SHARD_BARRIER is not true: open-loop shards need a common start")
	}
	if u := env["AIPERF_ARTIFACT_DIR"]; !regexp.MustCompile(`^(s3|gs|azblob)://`).MatchString(u) {
		t.Errorf("AIPERF_ARTIFACT_DIR %q is not an object store URL (the barrier and the group live in the store)", u)
	}
	if v, ok := env["AIPERF_SHARD_BARRIER_TIMEOUT"]; ok {
		if _, err := strconv.Atoi(v); err != nil {
			t.Errorf("AIPERF_SHARD_BARRIER_TIMEOUT %q: want whole seconds", v)
		}
	}
	if env["AIPERF_URL"] == "" || env["AIPERF_MODEL"] == "" {
		t.Errorf("AIPERF_URL and AIPERF_MODEL must be set")
	}
}

// decodeStrictJSON decodes path into v, refusing unknown fields. The AWS
// SDK's input types carry no JSON tags: encoding/json matches the CLI's
// camelCase member names to their Go names case-insensitively.
func decodeStrictJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestAWSBatch(t *testing.T) {
	var def batch.RegisterJobDefinitionInput
	decodeStrictJSON(t, "aws-batch/job-definition.json", &def)
	var sub batch.SubmitJobInput
	decodeStrictJSON(t, "aws-batch/submit-job.json", &sub)

	if def.JobDefinitionName == nil || def.ContainerProperties == nil {
		t.Fatal("jobDefinitionName and containerProperties are required")
	}
	if !slices.Contains(def.Type.Values(), def.Type) {
		t.Errorf("type %q, want one of %v", def.Type, def.Type.Values())
	}
	for _, p := range def.PlatformCapabilities {
		if !slices.Contains(p.Values(), p) {
			t.Errorf("platformCapabilities %q, want one of %v", p, p.Values())
		}
	}
	cp := def.ContainerProperties
	for _, r := range cp.ResourceRequirements {
		if !slices.Contains(r.Type.Values(), r.Type) {
			t.Errorf("resourceRequirements type %q, want one of %v", r.Type, r.Type.Values())
		}
	}
	if cp.NetworkConfiguration != nil && !slices.Contains(cp.NetworkConfiguration.AssignPublicIp.Values(), cp.NetworkConfiguration.AssignPublicIp) {
		t.Errorf("assignPublicIp %q is not valid", cp.NetworkConfiguration.AssignPublicIp)
	}
	if cp.LogConfiguration != nil && !slices.Contains(cp.LogConfiguration.LogDriver.Values(), cp.LogConfiguration.LogDriver) {
		t.Errorf("logDriver %q is not valid", cp.LogConfiguration.LogDriver)
	}
	if slices.Contains(def.PlatformCapabilities, batchtypes.PlatformCapabilityFargate) && cp.ExecutionRoleArn == nil {
		t.Errorf("Fargate needs executionRoleArn")
	}
	env := map[string]string{}
	for _, kv := range cp.Environment {
		env[*kv.Name] = *kv.Value
		if secretLike.MatchString(*kv.Name) {
			t.Errorf("environment %s must be a secret (secrets, valueFrom Secrets Manager or SSM)", *kv.Name)
		}
	}
	checkShardEnv(t, env)
	for _, s := range cp.Secrets {
		if !strings.HasPrefix(*s.ValueFrom, "arn:aws:secretsmanager:") && !strings.HasPrefix(*s.ValueFrom, "arn:aws:ssm:") {
			t.Errorf("secret %s: valueFrom %q is not a Secrets Manager or SSM ARN", *s.Name, *s.ValueFrom)
		}
	}

	if sub.JobName == nil || sub.JobQueue == nil || sub.JobDefinition == nil {
		t.Fatal("submit-job: jobName, jobQueue and jobDefinition are required")
	}
	if *sub.JobDefinition != *def.JobDefinitionName {
		t.Errorf("submit-job names job definition %q, the definition is %q", *sub.JobDefinition, *def.JobDefinitionName)
	}
	if sub.ArrayProperties == nil || sub.ArrayProperties.Size == nil || *sub.ArrayProperties.Size < 2 || *sub.ArrayProperties.Size > 10000 {
		t.Fatalf("arrayProperties.size must be in [2, 10000]")
	}
	// AWS Batch documents AWS_BATCH_JOB_ARRAY_INDEX only, so the count is
	// given too, and must match the array's size.
	if want := strconv.Itoa(int(*sub.ArrayProperties.Size)); env["AIPERF_SHARD_COUNT"] != want {
		t.Errorf("AIPERF_SHARD_COUNT %q, want the array size %s", env["AIPERF_SHARD_COUNT"], want)
	}
}

func TestCloudRunJob(t *testing.T) {
	docs := documents(t, "cloud-run/job.yaml")
	if len(docs) != 1 {
		t.Fatalf("%d documents, want 1", len(docs))
	}
	var job run.Job
	if err := yaml.UnmarshalStrict(docs[0], &job); err != nil {
		t.Fatalf("cloud-run/job.yaml: %v", err)
	}
	if job.ApiVersion != "run.googleapis.com/v1" || job.Kind != "Job" {
		t.Errorf("apiVersion/kind %s/%s, want run.googleapis.com/v1/Job", job.ApiVersion, job.Kind)
	}
	if job.Metadata == nil || job.Metadata.Name == "" {
		t.Fatal("metadata.name is required")
	}
	if job.Spec == nil || job.Spec.Template == nil || job.Spec.Template.Spec == nil {
		t.Fatal("spec.template.spec is required")
	}
	exec := job.Spec.Template.Spec
	if exec.TaskCount < 2 || exec.Parallelism != exec.TaskCount {
		t.Errorf("taskCount %d, parallelism %d: want equal and at least 2 (the barrier waits for every task)", exec.TaskCount, exec.Parallelism)
	}
	if exec.Template == nil || exec.Template.Spec == nil || len(exec.Template.Spec.Containers) != 1 {
		t.Fatal("spec.template.spec.template.spec.containers: want one container")
	}
	c := exec.Template.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
		if secretLike.MatchString(e.Name) && (e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
			t.Errorf("env %s must come from Secret Manager (secretKeyRef)", e.Name)
		}
	}
	checkShardEnv(t, env)
	if _, ok := env["AIPERF_SHARD_COUNT"]; ok {
		t.Errorf("AIPERF_SHARD_COUNT: the count comes from CLOUD_RUN_TASK_COUNT (taskCount)")
	}
}

func TestDockerfile(t *testing.T) {
	f, err := os.Open("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := parser.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	stages, _, err := instructions.Parse(res.AST, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]instructions.Stage{}
	for i, s := range stages {
		byName[s.Name] = s
		for _, c := range s.Commands {
			if cp, ok := c.(*instructions.CopyCommand); ok && cp.From != "" {
				if _, ok := byName[cp.From]; !ok && !strings.Contains(cp.From, "/") {
					t.Errorf("stage %d (%s): COPY --from=%s names no earlier stage", i, s.Name, cp.From)
				}
			}
		}
	}
	last := stages[len(stages)-1]
	if last.Name != "runner" || !strings.HasPrefix(last.BaseName, "gcr.io/distroless/static") {
		t.Errorf("last stage %q FROM %s: want the static runner (a plain docker build builds it)", last.Name, last.BaseName)
	}
	report, ok := byName["report"]
	if !ok {
		t.Fatal("no stage named report (docker build --target report)")
	}
	if strings.Contains(report.BaseName, "static") {
		t.Errorf("report stage FROM %s: aiperf-report links DuckDB with cgo and needs glibc", report.BaseName)
	}
	entry := func(s instructions.Stage) string {
		for _, c := range s.Commands {
			if e, ok := c.(*instructions.EntrypointCommand); ok {
				return strings.Join(e.CmdLine, " ")
			}
		}
		return ""
	}
	if got := entry(report); got != "/usr/local/bin/aiperf-report" {
		t.Errorf("report entrypoint %q", got)
	}
	if got := entry(last); got != "/usr/local/bin/aiperf" {
		t.Errorf("runner entrypoint %q", got)
	}
	builds := map[string]string{}
	for _, s := range stages {
		for _, c := range s.Commands {
			if r, ok := c.(*instructions.RunCommand); ok {
				line := strings.Join(r.CmdLine, " ")
				for _, cmd := range []string{"./cmd/aiperf-report", "./cmd/aiperf"} {
					if strings.Contains(line, "-o /out/"+filepath.Base(cmd)+" "+cmd) {
						builds[cmd] = line
					}
				}
			}
		}
	}
	if !strings.Contains(builds["./cmd/aiperf"], "-static") {
		t.Errorf("the runner build is not static: %q", builds["./cmd/aiperf"])
	}
	if l := builds["./cmd/aiperf-report"]; l == "" || strings.Contains(l, "CGO_ENABLED=0") {
		t.Errorf("the report build must exist and keep cgo: %q", l)
	}
}

func TestWorkflow(t *testing.T) {
	raw, err := os.ReadFile("github/nightly.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Services map[string]struct {
				Image string   `yaml:"image"`
				Ports []string `yaml:"ports"`
			} `yaml:"services"`
			Env   map[string]string `yaml:"env"`
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
				Run  string            `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yamlv3.Unmarshal(raw, &wf); err != nil {
		t.Fatal(err)
	}
	if wf.Permissions["id-token"] != "write" {
		t.Errorf("permissions: id-token: write is needed for OIDC")
	}
	job, ok := wf.Jobs["profile"]
	if !ok {
		t.Fatal("no profile job (scripts/test-workflow.sh runs it)")
	}
	if len(job.Services) != 1 {
		t.Errorf("%d services, want the one server", len(job.Services))
	}
	var oidc, regress, upload bool
	for _, s := range job.Steps {
		if strings.HasPrefix(s.Uses, "aws-actions/configure-aws-credentials@") && s.With["role-to-assume"] != "" {
			oidc = true
		}
		if strings.HasPrefix(s.Uses, "actions/upload-artifact@") {
			upload = true
		}
		if strings.Contains(s.Run, "aiperf-report") && strings.Contains(s.Run, " regress ") && strings.Contains(s.Run, "GITHUB_STEP_SUMMARY") {
			regress = true
		}
	}
	if !oidc || !regress || !upload {
		t.Errorf("want steps for OIDC (role-to-assume) %v, artifact upload %v, regress to the step summary %v", oidc, upload, regress)
	}
}

// pendingFlags are settings of issue 15 that other changes add; a
// definition may use them before they are merged.
var pendingFlags = regexp.MustCompile(`^AIPERF_(SHARD_|RUN_GROUP|START_AT|THRESHOLD)`)

// TestEnvNamesAreFlags checks that every AIPERF_* name the definitions set
// is a flag of the built runner (../bin/aiperf, from make build).
func TestEnvNamesAreFlags(t *testing.T) {
	help, err := exec.Command("../bin/aiperf", "profile", "--help").CombinedOutput()
	if err != nil {
		t.Skipf("SKIP: ../bin/aiperf profile --help: %v (make build first)", err)
	}
	flags := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(help))
	for sc.Scan() {
		for _, m := range regexp.MustCompile(`--([a-z0-9][a-z0-9.-]*)`).FindAllStringSubmatch(sc.Text(), -1) {
			flags["AIPERF_"+strings.NewReplacer("-", "_", ".", "_").Replace(strings.ToUpper(m[1]))] = true
		}
	}
	name := regexp.MustCompile(`\bAIPERF_[A-Z0-9_]+\b`)
	for _, path := range []string{"kubernetes/indexed-job.yaml", "aws-batch/job-definition.json", "cloud-run/job.yaml", "github/nightly.yml"} {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, n := range name.FindAllString(string(raw), -1) {
			if seen[n] || flags[n] || strings.HasPrefix(n, "AIPERF_S3_") {
				continue
			}
			seen[n] = true
			if pendingFlags.MatchString(n) {
				t.Logf("SKIP %s: %s is not a flag of this aiperf yet (sharding/thresholds not merged)", path, n)
				continue
			}
			t.Errorf("%s: %s is no flag of aiperf profile", path, n)
		}
	}
}
