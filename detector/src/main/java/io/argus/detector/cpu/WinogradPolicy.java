package io.argus.detector.cpu;

import java.util.List;
import java.util.Locale;

/**
 * Whether our own Winograd convolution ({@link WinogradConvolution}) may run, for the FP32 3x3 stride-1 convolutions
 * it handles ({@code models[].cpu.winograd}):
 * <ul>
 *   <li>{@link #AUTO} (default): F(2x2) and F(4x4) are two more candidates the tuner times against oneDNN's
 *       implementations; the fastest wins, layer by layer;</li>
 *   <li>{@link #OFF}: only oneDNN's implementations;</li>
 *   <li>{@link #F2X2}, {@link #F4X4}: that tile on every layer it handles, nothing timed (for the equivalence tests
 *       and for measuring it against {@code off}).</li>
 * </ul>
 */
public enum WinogradPolicy {
    AUTO, OFF, F2X2, F4X4;

    /** "auto", "off", "f2x2" or "f4x4" (any case); anything else fails naming the choices. */
    public static WinogradPolicy parse(String s) {
        if (s != null) {
            for (WinogradPolicy p : values()) if (p.label().equals(s.strip().toLowerCase(Locale.ROOT))) return p;
        }
        throw new IllegalArgumentException("expected auto, off, f2x2 or f4x4, found \"" + s + "\"");
    }

    public String label() { return name().toLowerCase(Locale.ROOT); }

    /** True for {@link #F2X2} and {@link #F4X4}: Winograd on every layer it handles, no timing. */
    public boolean forced() { return this == F2X2 || this == F4X4; }

    /** The tiles offered to the tuner (or forced) for a layer that Winograd handles. */
    List<WinogradTile> tiles() {
        return switch (this) {
            case AUTO -> List.of(WinogradTile.F2X2, WinogradTile.F4X4);
            case OFF -> List.of();
            case F2X2 -> List.of(WinogradTile.F2X2);
            case F4X4 -> List.of(WinogradTile.F4X4);
        };
    }
}
