"""CEL device selectors with the Kubernetes DRA environment."""
