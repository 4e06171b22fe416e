// The variables Gatehouse sets in the environment of an agent task it launches (core/runtime, the task
// runner) and that the task's hook reads (cli/hook, approval-server/task-proof.ts).

/** Names the task (set for every task; by itself only a claim). */
export const TASK_ID_ENV = "GATEHOUSE_TASK_ID";
/** The task's provenance key: a secret for that one agent process, never for the commands it runs. */
export const TASK_KEY_ENV = "GATEHOUSE_TASK_KEY";
