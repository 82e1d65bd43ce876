package org.arbiter.runtime.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

final class SecretFilesTest {

    @TempDir
    Path dir;

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void thePasswordFile_isReadableOnlyByItsOwner_andReplacesAnOldOne() throws Exception {
        Path f = dir.resolve("admin.password");
        Files.writeString(f, "old\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-rw-"));
        SecretFiles.writeOwnerOnly(f, "s3cret\n");
        assertThat(Files.readString(f)).isEqualTo("s3cret\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).isEqualTo("rw-------");
    }
}
