package appsec

func infraGenerators() []Generator {
	return []Generator{
		{
			Archetype: "privileged-container", Language: "kubernetes", Framework: "deployment",
			Levels:        []Difficulty{Beginner, Advanced},
			FilePath:      "deploy/{{.Entity}}-worker.yaml",
			Explanation:   "The {{.Entity}}-worker container runs privileged with the node's root filesystem mounted, so any code execution in the worker is root on the node.",
			Exploit:       "An attacker who gets code execution in the worker (for example through a malicious {{.Entities}}-{{.Param}} queue message) runs chroot /host and controls the node, its kubelet credentials and every pod on it.",
			Fix:           "Drop privileged mode and the hostPath mount; run as non-root with no privilege escalation, all capabilities dropped, a read-only root filesystem and the RuntimeDefault seccomp profile.",
			Remediation:   []string{"Remove privileged: true and hostPath volumes.", "Enforce the restricted Pod Security Standard on the namespace.", "Give the worker an emptyDir for scratch space."},
			Preconditions: []string{"Code execution inside the worker container."},
		},
	}
}
