package appsec

func infraGenerators() []Generator {
	return []Generator{
		{
			Archetype: "privileged-container", Language: "kubernetes", Framework: "deployment",
			Levels:   []Difficulty{Beginner, Advanced},
			FilePath: "deploy/{{.Entity}}-worker.yaml",
			Vulnerable: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{.Entity}}-worker
  labels:
    app: {{.Entity}}-worker
spec:
  replicas: 2
  selector:
    matchLabels:
      app: {{.Entity}}-worker
  template:
    metadata:
      labels:
        app: {{.Entity}}-worker
    spec:
      containers:
        - name: worker
          image: registry.example.com/{{.Entities}}/worker:1.4.2
          args: ["--queue", "{{.Entities}}-{{.Param}}"]
          securityContext:
            privileged: true⟪v⟫
            allowPrivilegeEscalation: true⟪v⟫
          volumeMounts:
            - name: host-root
              mountPath: /host
      volumes:
        - name: host-root
          hostPath:⟪v⟫
            path: /⟪v⟫
`,
			Secure: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{.Entity}}-worker
  labels:
    app: {{.Entity}}-worker
spec:
  replicas: 2
  selector:
    matchLabels:
      app: {{.Entity}}-worker
  template:
    metadata:
      labels:
        app: {{.Entity}}-worker
    spec:
      securityContext:
        runAsNonRoot: true
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: worker
          image: registry.example.com/{{.Entities}}/worker:1.4.2
          args: ["--queue", "{{.Entities}}-{{.Param}}"]
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities:
              drop: ["ALL"]
          volumeMounts:
            - name: scratch
              mountPath: /tmp
      volumes:
        - name: scratch
          emptyDir: {}
`,
			Explanation:   "The {{.Entity}}-worker container runs privileged with the node's root filesystem mounted, so any code execution in the worker is root on the node.",
			Exploit:       "An attacker who gets code execution in the worker (for example through a malicious {{.Entities}}-{{.Param}} queue message) runs chroot /host and controls the node, its kubelet credentials and every pod on it.",
			Fix:           "Drop privileged mode and the hostPath mount; run as non-root with no privilege escalation, all capabilities dropped, a read-only root filesystem and the RuntimeDefault seccomp profile.",
			Remediation:   []string{"Remove privileged: true and hostPath volumes.", "Enforce the restricted Pod Security Standard on the namespace.", "Give the worker an emptyDir for scratch space."},
			Preconditions: []string{"Code execution inside the worker container."},
		},
	}
}
