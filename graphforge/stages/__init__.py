"""Pipeline stages: one module per stage with <Stage>Params, <Stage>Result and run(ctx, params)."""
