// Command workflowrun runs the `run:` steps of one job of a GitHub Actions
// workflow on this machine, the way the runner would: the workflow's and
// the job's env (with the few expressions they use resolved), each step's
// own env, bash -eo pipefail, $GITHUB_ENV and $GITHUB_PATH carried from
// step to step, and the steps' `if:` conditions. Steps that call an action
// (`uses:`) are skipped and listed; the caller provides what they would
// (the checkout is the working directory; services are started by the
// caller on the ports `-ports` prints).
//
//	workflowrun -workflow FILE -job ID -ports
//	workflowrun -workflow FILE -job ID [-unset NAME]...
//
// The process environment supplies RUNNER_TEMP, GITHUB_STEP_SUMMARY,
// GITHUB_ENV, GITHUB_PATH and PATH. Repository variables (vars.*) are
// empty, as on a repository that sets none. It exits 1 when a step fails.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Workflow is the part of a workflow file that workflowrun reads.
type Workflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]Job    `yaml:"jobs"`
}

// Job is one job of a workflow.
type Job struct {
	Env      map[string]string  `yaml:"env"`
	Services map[string]Service `yaml:"services"`
	Steps    []Step             `yaml:"steps"`
}

// Service is a job's service container.
type Service struct {
	Image string   `yaml:"image"`
	Ports []string `yaml:"ports"`
}

// Step is one step of a job.
type Step struct {
	Name             string            `yaml:"name"`
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	Run              string            `yaml:"run"`
	Shell            string            `yaml:"shell"`
	Env              map[string]string `yaml:"env"`
	WorkingDirectory string            `yaml:"working-directory"`
}

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "workflowrun:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("workflowrun", flag.ContinueOnError)
	file := fs.String("workflow", "", "workflow `FILE`")
	jobID := fs.String("job", "", "the job `ID` whose steps run")
	ports := fs.Bool("ports", false, "print the host ports of the job's services, one a line, and exit")
	var unset stringList
	fs.Var(&unset, "unset", "drop this env `NAME` of the workflow or job (repeatable), e.g. a setting this build lacks")
	if err := fs.Parse(args); err != nil {
		return err
	}
	raw, err := os.ReadFile(*file)
	if err != nil {
		return err
	}
	var wf Workflow
	if err := yaml.Unmarshal(raw, &wf); err != nil {
		return fmt.Errorf("%s: %w", *file, err)
	}
	job, ok := wf.Jobs[*jobID]
	if !ok {
		return fmt.Errorf("%s: no job %q", *file, *jobID)
	}
	if *ports {
		for _, name := range sortedKeys(job.Services) {
			for _, p := range job.Services[name].Ports {
				host, _, _ := strings.Cut(p, ":")
				fmt.Println(host)
			}
		}
		return nil
	}

	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for _, layer := range []map[string]string{wf.Env, job.Env} {
		for k, v := range layer {
			if env[k], err = resolve(v, env); err != nil {
				return fmt.Errorf("env %s: %w", k, err)
			}
		}
	}
	for _, k := range unset {
		delete(env, k)
	}

	failed := false
	for i, st := range job.Steps {
		name := st.Name
		if name == "" {
			name = firstLine(st.Run + st.Uses)
		}
		label := fmt.Sprintf("step %d (%s)", i+1, name)
		ok, err := condition(st.If, failed)
		if err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		switch {
		case st.Uses != "":
			fmt.Printf("== %s: skipped, uses %s\n", label, st.Uses)
			continue
		case !ok:
			fmt.Printf("== %s: skipped, if: %s\n", label, st.If)
			continue
		case st.Shell != "" && st.Shell != "bash":
			return fmt.Errorf("%s: shell %q: only bash is run here", label, st.Shell)
		}
		stepEnv := map[string]string{}
		for k, v := range env {
			stepEnv[k] = v
		}
		for k, v := range st.Env {
			if stepEnv[k], err = resolve(v, env); err != nil {
				return fmt.Errorf("%s: env %s: %w", label, k, err)
			}
		}
		fmt.Printf("== %s\n", label)
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", st.Run)
		cmd.Dir = st.WorkingDirectory
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		for _, k := range sortedKeys(stepEnv) {
			cmd.Env = append(cmd.Env, k+"="+stepEnv[k])
		}
		if err := cmd.Run(); err != nil {
			fmt.Printf("== %s: failed: %v\n", label, err)
			failed = true
		}
		if err := carry(env); err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
	}
	if failed {
		return errors.New("a step failed")
	}
	return nil
}

// carry applies what the step wrote to $GITHUB_ENV (KEY=value lines) and
// $GITHUB_PATH (one directory a line, prepended) to env, then empties both
// files, as the runner does between steps.
func carry(env map[string]string) error {
	for _, f := range []string{"GITHUB_ENV", "GITHUB_PATH"} {
		path := env[f]
		if path == "" {
			return fmt.Errorf("%s is not set", f)
		}
		raw, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		sc := bufio.NewScanner(strings.NewReader(string(raw)))
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				continue
			}
			if f == "GITHUB_PATH" {
				env["PATH"] = line + ":" + env["PATH"]
				continue
			}
			k, v, ok := strings.Cut(line, "=")
			if !ok || strings.Contains(line, "<<") {
				return fmt.Errorf("$GITHUB_ENV line %q: only KEY=value lines are supported here", line)
			}
			env[k] = v
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			return err
		}
	}
	return nil
}

var expr = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// resolve replaces the expressions of an env value: github.repository_owner
// ("local"), runner.temp ($RUNNER_TEMP), vars.* (empty). Any other
// expression is an error, so the test cannot silently diverge from the
// workflow.
func resolve(v string, env map[string]string) (string, error) {
	var bad error
	out := expr.ReplaceAllStringFunc(v, func(m string) string {
		e := expr.FindStringSubmatch(m)[1]
		switch {
		case e == "github.repository_owner":
			return "local"
		case e == "runner.temp":
			return env["RUNNER_TEMP"]
		case strings.HasPrefix(e, "vars."):
			return ""
		}
		bad = fmt.Errorf("expression %q is not supported here", e)
		return m
	})
	return out, bad
}

// condition evaluates a step's if: the conjunction of always(),
// success(), failure(), !cancelled(), and vars.NAME == / != ”
// (variables are empty here). An empty if is success().
func condition(cond string, failed bool) (bool, error) {
	cond = strings.TrimSpace(cond)
	if m := expr.FindStringSubmatch(cond); m != nil && m[0] == cond {
		cond = m[1]
	}
	if cond == "" {
		return !failed, nil
	}
	result := true
	explicitStatus := false
	for _, term := range strings.Split(cond, "&&") {
		term = strings.Join(strings.Fields(term), " ")
		switch {
		case term == "always()" || term == "!cancelled()":
			explicitStatus = true
		case term == "success()":
			explicitStatus = true
			result = result && !failed
		case term == "failure()":
			explicitStatus = true
			result = result && failed
		case regexp.MustCompile(`^vars\.\w+ == ''$`).MatchString(term):
		case regexp.MustCompile(`^vars\.\w+ != ''$`).MatchString(term):
			result = false
		default:
			return false, fmt.Errorf("if: %q: term %q is not supported here", cond, term)
		}
	}
	if !explicitStatus {
		result = result && !failed
	}
	return result, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
