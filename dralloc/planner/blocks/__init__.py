"""The block-layout pattern model for one-device shared claims on multi-host blocks (TPU slices): layouts per block, solved exactly and decoded through the allocator."""
