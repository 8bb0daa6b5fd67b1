"""The realistic rendering tier: the fast tier's world drawn again by Blender's Cycles on the CPU.

Runs only in its own environment with the `bpy` wheel (docs/realistic-fixtures.md); CI never
imports it. materials.py makes the Principled BSDF materials, meshes.py turns the fast tier's
solids and hand capsules into meshes, stage.py builds the table, the printed mat, the lights and
the camera, and render.py's BlenderRenderer stands in for vision.render.scene.Renderer so that
vision.render.record.write_recording films a game with it unchanged. looks.py (the fixtures'
cameras, lights and specs) and evaluate.py (how the observers read a recording) need no bpy.
"""
