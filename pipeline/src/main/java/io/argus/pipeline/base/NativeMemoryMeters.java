package io.argus.pipeline.base;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.bytedeco.javacpp.Pointer;

/**
 * Native memory JavaCPP accounts for, exported because neither the JVM's series nor RSS can tell it apart: FFmpeg's
 * frames, packets and contexts, the frame pool's buffers and every other {@code Pointer} allocated with a deallocator
 * live outside the heap, and a leak of them grows RSS while {@code jvm_memory_used_bytes} stays flat. The soak
 * (scripts/soak.sh, docs/reliability.md) samples these to tell a native leak from heap growth or allocator slack.
 *
 * <ul>
 *   <li>{@code argus_native_bytes}: {@link Pointer#totalBytes()}, bytes JavaCPP allocated and has not yet freed
 *       (what {@code -Dorg.bytedeco.javacpp.maxBytes} bounds);</li>
 *   <li>{@code argus_native_pointers}: {@link Pointer#totalCount()}, the deallocators alive: a leak of small
 *       objects (contexts, packets) shows here before it shows in bytes.</li>
 * </ul>
 * Both are plain reads of JavaCPP's counters (no scan), cheap at every scrape.
 */
public final class NativeMemoryMeters {
    private NativeMemoryMeters() {}

    public static void register(MeterRegistry registry) {
        Gauge.builder("argus.native.bytes", Pointer::totalBytes).baseUnit("bytes")
                .description("Native bytes allocated through JavaCPP and not yet freed").register(registry);
        Gauge.builder("argus.native.pointers", Pointer::totalCount)
                .description("JavaCPP pointers with a live deallocator").register(registry);
    }
}
