package io.argus.pipeline.doctor;

import io.argus.detector.cpu.CpuInfo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The parsing behind the doctor's advice: ldd output, loader errors, sonames to packages, dpkg and cpuinfo. */
@Budget(seconds = 5)
class MissingLibrariesTest {
    static final String LDD = """
            \tlinux-vdso.so.1 (0x00007ffd6a5f2000)
            \tlibavfilter.so.11 => /root/.javacpp/cache/ffmpeg/libavfilter.so.11 (0x00007f2a1c000000)
            \tlibpulse.so.0 => not found
            \tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f2a1bfd0000)
            \tlibxcb-shm.so.0 => not found
            \tlibpulse.so.0 => not found
            \tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f2a1bc00000)
            \t/lib64/ld-linux-x86-64.so.2 (0x00007f2a1c9e0000)
            """;

    @Test
    void lddNotFoundLinesNameTheMissingLibraries() {
        assertEquals(List.of("libpulse.so.0", "libxcb-shm.so.0"), MissingLibraries.parseLdd(LDD));
        assertEquals(List.of(), MissingLibraries.parseLdd("\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x1)\n"));
    }

    @Test
    void aLoaderErrorNamesTheLibrary() {
        assertEquals("libpulse.so.0", MissingLibraries.fromLinkError("/root/.javacpp/cache/ffmpeg-8.0.1-1.5.13-linux-x86_64.jar/"
                + "org/bytedeco/ffmpeg/linux-x86_64/libjniavdevice.so: libpulse.so.0: cannot open shared object file: "
                + "No such file or directory"));
        assertNull(MissingLibraries.fromLinkError("no jniavdevice in java.library.path"));
        assertNull(MissingLibraries.fromLinkError(null));
    }

    @Test
    void sonamesMapToDebianPackages() {
        assertEquals(new DebianPackages.Package("libpulse0", true), DebianPackages.forLibrary("libpulse.so.0"));
        assertEquals("apt-get install --no-install-recommends libpulse0", DebianPackages.forLibrary("libpulse.so.0").installCommand());
        assertEquals("libxcb-shm0", DebianPackages.forLibrary("libxcb-shm.so.0").name());
        assertEquals("fontconfig", DebianPackages.forLibrary("libfontconfig.so.1").name());
        assertEquals("libasound2", DebianPackages.forLibrary("libasound.so.2").name());
        assertEquals("libfoo1", DebianPackages.byNamingRule("libfoo.so.1"));
        assertEquals("libfoo2-1", DebianPackages.byNamingRule("libfoo2.so.1"));
        assertEquals("libx264-164", DebianPackages.byNamingRule("libx264.so.164"));
    }

    @Test
    void systemPackageListAndDpkgStatus() {
        assertEquals(List.of("libpulse0", "fontconfig"), SystemPackagesCheck.parse("# why\nlibpulse0   # FFmpeg\n\n  fontconfig\n"));
        Set<String> installed = SystemPackagesCheck.installed("libpulse0 install ok installed\nlibxcb1:amd64 install ok installed\n"
                + "libasound2 deinstall ok config-files\n");
        assertEquals(Set.of("libpulse0", "libxcb1"), installed);
    }

    @Test
    void cpuinfoGivesModelFamilyAndIsa() {
        CpuInfo cpu = CpuInfo.parse("""
                processor\t: 0
                vendor_id\t: GenuineIntel
                cpu family\t: 6
                model\t\t: 143
                model name\t: Intel(R) Xeon(R) Platinum 8480+
                stepping\t: 8
                flags\t\t: fpu sse4_1 avx2 fma avx512f avx512_vnni avx512_bf16 amx_tile amx_bf16 amx_int8
                
                processor\t: 1
                model name\t: Intel(R) Xeon(R) Platinum 8480+
                """);
        assertEquals("Intel(R) Xeon(R) Platinum 8480+", cpu.modelName());
        assertEquals("6", cpu.family());
        assertEquals("143", cpu.model());
        assertEquals("8", cpu.stepping());
        assertEquals(2, cpu.processors());
        assertEquals(List.of("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile", "amx_bf16", "amx_int8"), cpu.relevantFlags());
        assertFalse(cpu.flags().contains("avx512_fp16"));
        assertTrue(cpu.flags().contains("sse4_1"));
    }
}
