"""What Kubernetes would do: pod-by-pod first-fit simulations (the fast one-device simulator, the general pod simulator through the allocator, and the replay reference) with the first / most / least node policies."""

POLICIES = ("first", "most", "least")  # node choice: first feasible by name, most / least DRA utilisation
