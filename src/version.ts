// The app version, reported to the backend (`executor_version`) and by `ping`.
export const APP_VERSION = "0.1.0";
