// IPC contract (issue 6).
export {};
