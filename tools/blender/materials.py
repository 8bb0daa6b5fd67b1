"""Principled BSDF materials: matte wood, glossy and clear plastic, painted pawns, paper, skin, cloth.

Colours come in as the kit's nominal sRGB triples and go to Blender as scene-linear values.
Wood and the table get a faint grain (stretched noise scaling the base colour) so that flat
faces are not flat colour; everything is made once per (kind, colour) and reused.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import bpy

RGB = tuple[int, int, int]
KINDS = ("wood", "plastic", "clear", "painted", "paper", "table", "skin", "cloth")
CLEAR_SURFACE = 0.3
GRAIN_SCALE = {"wood": (60.0, 600.0), "table": (8.0, 120.0)}


def linear(rgb: Iterable[float]) -> tuple[float, float, float]:
    """Returns the scene-linear value of an sRGB 0..255 colour."""
    def one(value: float) -> float:
        c = min(max(value / 255.0, 0.0), 1.0)
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (one(float(part)) for part in rgb)
    return (r, g, b)


class Materials:
    """Makes and remembers one material per kind and colour."""

    def __init__(self) -> None:
        self._made: dict[tuple[str, RGB], Any] = {}

    def get(self, kind: str, rgb: RGB) -> Any:
        """Returns the material of a kind (one of KINDS) and nominal colour, made on first use."""
        key = (kind, tuple(int(part) for part in rgb))
        if key not in self._made:
            self._made[key] = _make(kind, key[1])  # type: ignore[arg-type]
        return self._made[key]


def _make(kind: str, rgb: RGB) -> Any:
    """Returns a new material of a kind and colour."""
    material = bpy.data.materials.new(f"{kind}-{rgb[0]}-{rgb[1]}-{rgb[2]}")
    material.use_nodes = True
    bsdf = material.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*linear(rgb), 1.0)
    SETTERS[kind](material, bsdf, rgb)
    return material


def _wood(material: Any, bsdf: Any, rgb: RGB) -> None:
    """Makes a matte, lightly oiled wood: rough, a faint sheen, grain in the colour."""
    _set(bsdf, {"Roughness": 0.55, "Specular IOR Level": 0.35})
    _grain(material, bsdf, rgb, GRAIN_SCALE["wood"], 0.12)


def _table(material: Any, bsdf: Any, rgb: RGB) -> None:
    """Makes a varnished table top: grain, a soft sheen."""
    _set(bsdf, {"Roughness": 0.45, "Specular IOR Level": 0.4})
    _grain(material, bsdf, rgb, GRAIN_SCALE["table"], 0.2)


def _plastic(material: Any, bsdf: Any, rgb: RGB) -> None:
    """Makes a glossy moulded plastic."""
    _set(bsdf, {"Roughness": 0.22, "Specular IOR Level": 0.5, "Coat Weight": 0.25, "Coat Roughness": 0.1})


def _clear(material: Any, bsdf: Any, rgb: RGB) -> None:
    """Makes a thin clear shell: mostly see-through (shadows pass), with a glossy tinted surface."""
    # A hollow Looney pyramid's thin walls hardly bend light, so it is a transparent layer rather
    # than a solid of glass (whose refraction would keep light off the mat inside it).
    tint = tuple(0.6 + 0.4 * part for part in linear(rgb))
    bsdf.inputs["Base Color"].default_value = (*tint, 1.0)
    _set(bsdf, {"Roughness": 0.08, "Specular IOR Level": 0.6})
    nodes, links = material.node_tree.nodes, material.node_tree.links
    see_through = nodes.new("ShaderNodeBsdfTransparent")
    see_through.inputs["Color"].default_value = (*tint, 1.0)
    mix = nodes.new("ShaderNodeMixShader")
    mix.inputs["Fac"].default_value = CLEAR_SURFACE
    links.new(see_through.outputs["BSDF"], mix.inputs[1])
    links.new(bsdf.outputs["BSDF"], mix.inputs[2])
    links.new(mix.outputs["Shader"], nodes["Material Output"].inputs["Surface"])


def _painted(material: Any, bsdf: Any, rgb: RGB) -> None:
    """Makes a painted, satin plastic (pawns)."""
    _set(bsdf, {"Roughness": 0.35, "Specular IOR Level": 0.5})


def _paper(material: Any, bsdf: Any, rgb: RGB) -> None:
    """Makes a matte printed paper (its colour comes from the mat image)."""
    _set(bsdf, {"Roughness": 0.8, "Specular IOR Level": 0.3})


def _skin(material: Any, bsdf: Any, rgb: RGB) -> None:
    """Makes skin: a soft sheen, a little subsurface light."""
    _set(bsdf, {"Roughness": 0.5, "Subsurface Weight": 0.15, "Subsurface Scale": 0.003})


def _cloth(material: Any, bsdf: Any, rgb: RGB) -> None:
    """Makes a woven sleeve: very rough, with sheen."""
    _set(bsdf, {"Roughness": 0.9, "Sheen Weight": 0.5, "Specular IOR Level": 0.2})


def _set(bsdf: Any, values: dict[str, float]) -> None:
    """Sets BSDF inputs by name."""
    for name, value in values.items():
        bsdf.inputs[name].default_value = value


def _grain(material: Any, bsdf: Any, rgb: RGB, scale: tuple[float, float], depth: float) -> None:
    """Scales the base colour by stretched noise in object space: wood grain of a given depth."""
    nodes, links = material.node_tree.nodes, material.node_tree.links
    coords = nodes.new("ShaderNodeTexCoord")
    mapping = nodes.new("ShaderNodeMapping")
    mapping.inputs["Scale"].default_value = (scale[0], scale[1], scale[0])
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = 1.0
    noise.inputs["Detail"].default_value = 6.0
    ramp = nodes.new("ShaderNodeMapRange")
    ramp.inputs["To Min"].default_value = 1.0 - depth
    ramp.inputs["To Max"].default_value = 1.0 + depth
    mix = nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    mix.blend_type = "MULTIPLY"
    mix.inputs["Factor"].default_value = 1.0
    mix.inputs[6].default_value = (*linear(rgb), 1.0)
    links.new(coords.outputs["Object"], mapping.inputs["Vector"])
    links.new(mapping.outputs["Vector"], noise.inputs["Vector"])
    links.new(noise.outputs["Fac"], ramp.inputs["Value"])
    links.new(ramp.outputs["Result"], mix.inputs[7])
    links.new(mix.outputs[2], bsdf.inputs["Base Color"])


def image_material(name: str, path: str) -> Any:
    """Returns a paper material printed with an image file (sRGB), mapped by the mesh's UVs."""
    material = _make("paper", (255, 255, 255))
    material.name = name
    nodes, links = material.node_tree.nodes, material.node_tree.links
    texture = nodes.new("ShaderNodeTexImage")
    texture.image = bpy.data.images.load(path)
    texture.interpolation = "Cubic"
    links.new(texture.outputs["Color"], nodes["Principled BSDF"].inputs["Base Color"])
    return material


SETTERS: dict[str, Callable[[Any, Any, RGB], None]] = {
    "wood": _wood, "plastic": _plastic, "clear": _clear, "painted": _painted, "paper": _paper,
    "table": _table, "skin": _skin, "cloth": _cloth,
}
