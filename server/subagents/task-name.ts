// The task tool's name (a leaf: the agent's tool runner runs consecutive task calls at once).
export const TASK_TOOL = 'task';
