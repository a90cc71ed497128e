#!/usr/bin/env bash
# Builds a ZooKeeper image for the Testcontainers tests without pulling anything from a
# container registry, and tags it with the names the tests start:
#   zookeeper:3.9, docker.io/library/zookeeper:3.9 (the same name to Docker) and
#   bitnami/zookeeper:3.9.
# Where Docker Hub is reachable, `docker pull zookeeper:3.9` serves the same tests; this
# script is for machines that reach only Debian's packages and Maven's local repository.
#
# The image is a Debian minbase root file system (debootstrap) with a headless JRE, the
# ZooKeeper server of this build (${zookeeper.version} of the root pom, with its runtime
# libraries, copied offline from ~/.m2 by maven-dependency-plugin) and a zoo.cfg for a
# standalone server on 2181. It keeps /bin/sh, grep, cat and nc: Testcontainers' default
# wait strategy looks for the listening port from inside the container with them.
#
# Needs: root (debootstrap and chroot), a running Docker engine, debootstrap, mvn, and a
# local repository where `mvn -o install -DskipTests` of this project has run.
# Never run by CI: .ci/run stays Docker-free, and the tests that need Docker are skipped
# there (@Testcontainers(disabledWithoutDocker = true)).
#
# Then run the Docker tests against that engine, with the image already present:
#   export TESTCONTAINERS_RYUK_DISABLED=true    # Ryuk's image would be pulled: containers
#                                              # are stopped by the tests themselves
#   export TESTCONTAINERS_CHECKS_DISABLE=true   # the start-up checks pull an image too
#   export TESTCONTAINERS_HOST_OVERRIDE=localhost  # mapped ports are on this host
#   mvn -B -o -pl zk-lock-spring-boot-autoconfigure test -Dtest='ZooKeeperContainer*'
#
# Environment (all optional):
#   ZK_IMAGE_WORK   work directory, removed at the end unless ZK_IMAGE_KEEP=true
#                   (default /tmp/zk-lock-zookeeper-image)
#   DEBIAN_MIRROR   Debian mirror for debootstrap (default: the first deb.debian.org-style
#                   URI of this machine's apt sources, else http://deb.debian.org/debian)
#   DEBIAN_SUITE    Debian suite of the image (default bookworm)
#   MVN             Maven command (default mvn)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
work="${ZK_IMAGE_WORK:-/tmp/zk-lock-zookeeper-image}"
suite="${DEBIAN_SUITE:-bookworm}"
mvn="${MVN:-mvn}"
tags=(zookeeper:3.9 docker.io/library/zookeeper:3.9 bitnami/zookeeper:3.9)

log() {
	printf '==> %s\n' "$*" >&2
}

for tool in docker debootstrap chroot tar "$mvn"; do
	command -v "$tool" >/dev/null || { echo "$tool is needed" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "debootstrap and chroot need root" >&2; exit 1; }
docker info >/dev/null 2>&1 || { echo "no Docker engine answers (is dockerd running?)" >&2; exit 1; }

if [ -z "${DEBIAN_MIRROR:-}" ]; then
	DEBIAN_MIRROR="$(grep -hoE '^(URIs:|deb) +[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null \
		| awk '{print $2}' | head -n 1 || true)"
	DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
fi

rootfs="$work/rootfs"
deps="$work/deps"
mkdir -p "$work"

# 1. The server's jars, resolved offline against this build's dependencyManagement (its
#    ZooKeeper version and exclusions), so the container runs the ZooKeeper the library
#    is tested with. metrics-core and snappy-java are 'provided' in ZooKeeper's pom but
#    needed by its server; logback is its logging backend.
log "copying ZooKeeper's jars from the local Maven repository"
rm -rf "$deps"
mkdir -p "$deps"
parent="$(realpath --relative-to="$deps" "$root/pom.xml")"
cat >"$deps/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
	<modelVersion>4.0.0</modelVersion>
	<parent>
		<groupId>dev.zklock</groupId>
		<artifactId>zk-lock-parent</artifactId>
		<version>0.1.0-SNAPSHOT</version>
		<relativePath>$parent</relativePath>
	</parent>
	<artifactId>zookeeper-image-deps</artifactId>
	<packaging>pom</packaging>
	<dependencies>
		<dependency>
			<groupId>org.apache.zookeeper</groupId>
			<artifactId>zookeeper</artifactId>
		</dependency>
		<dependency>
			<groupId>io.dropwizard.metrics</groupId>
			<artifactId>metrics-core</artifactId>
		</dependency>
		<dependency>
			<groupId>org.xerial.snappy</groupId>
			<artifactId>snappy-java</artifactId>
		</dependency>
		<dependency>
			<groupId>ch.qos.logback</groupId>
			<artifactId>logback-classic</artifactId>
		</dependency>
	</dependencies>
</project>
EOF
"$mvn" -B -q -o -f "$deps/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
	-DoutputDirectory="$deps/lib"
ls "$deps"/lib/zookeeper-3.*.jar >/dev/null

# 2. A Debian root file system with a JRE, sh, grep, cat and nc; reused when a previous
#    run left one (debootstrap takes minutes).
if [ ! -x "$rootfs/usr/lib/jvm/java-17-openjdk-amd64/bin/java" ]; then
	log "debootstrap $suite from $DEBIAN_MIRROR"
	rm -rf "$rootfs"
	debootstrap --variant=minbase --include=openjdk-17-jre-headless,netcat-openbsd \
		"$suite" "$rootfs" "$DEBIAN_MIRROR" >"$work/debootstrap.log" 2>&1 \
		|| { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }
fi
# What a container never reads: a smaller image to import
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* \
	"$rootfs"/usr/share/man/* "$rootfs"/usr/share/locale/*

# 3. ZooKeeper in the root file system
log "installing ZooKeeper into the root file system"
rm -rf "$rootfs/zk" "$rootfs/conf" "$rootfs/data"
mkdir -p "$rootfs/zk/lib" "$rootfs/conf" "$rootfs/data"
cp "$deps"/lib/*.jar "$rootfs/zk/lib/"
cat >"$rootfs/conf/zoo.cfg" <<'EOF'
# Standalone server for tests, as the official image's defaults
dataDir=/data
clientPort=2181
tickTime=2000
initLimit=5
syncLimit=2
maxClientCnxns=0
admin.enableServer=false
4lw.commands.whitelist=*
EOF
cat >"$rootfs/conf/logback.xml" <<'EOF'
<configuration>
	<appender name="CONSOLE" class="ch.qos.logback.core.ConsoleAppender">
		<encoder>
			<pattern>%d{ISO8601} [myid:%X{myid}] - %-5p [%t:%C{1}@%L] - %m%n</pattern>
		</encoder>
	</appender>
	<root level="INFO">
		<appender-ref ref="CONSOLE" />
	</root>
</configuration>
EOF

# 4. Import it as an image. /dev and /proc are the runtime's to fill.
log "importing the image as ${tags[0]}"
previous="$(docker image inspect --format '{{.Id}}' "${tags[0]}" 2>/dev/null || true)"
tar -C "$rootfs" --numeric-owner --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' -cf - . \
	| docker import \
		--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change 'WORKDIR /' \
		--change 'EXPOSE 2181' \
		--change 'CMD ["java", "-Dlogback.configurationFile=/conf/logback.xml", "-cp", "/zk/lib/*", "org.apache.zookeeper.server.quorum.QuorumPeerMain", "/conf/zoo.cfg"]' \
		--message 'ZooKeeper for zk-lock tests (build-zookeeper-image.sh)' \
		- "${tags[0]}" >/dev/null
for tag in "${tags[@]:1}"; do
	docker tag "${tags[0]}" "$tag"
done
image="$(docker image inspect --format '{{.Id}}' "${tags[0]}")"
# A re-run leaves the previous build untagged: remove it, unless a container still uses it
if [ -n "$previous" ] && [ "$previous" != "$image" ]; then
	docker rmi "$previous" >/dev/null 2>&1 || true
fi

# 5. Check that it serves ZooKeeper on a published port
log "checking that the image answers ruok"
container="$(docker run -d -p 127.0.0.1::2181 "${tags[0]}")"
trap 'docker rm -f "$container" >/dev/null 2>&1 || true' EXIT
port="$(docker port "$container" 2181/tcp | head -n 1 | sed 's/.*://')"
answer=""
for _ in $(seq 1 60); do
	answer="$( (exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'ruok' >&3 && timeout 2 cat <&3) 2>/dev/null || true)"
	[ "$answer" = "imok" ] && break
	sleep 1
done
if [ "$answer" != "imok" ]; then
	docker logs "$container" >&2 || true
	echo "the image did not answer ruok on port $port" >&2
	exit 1
fi

if [ "${ZK_IMAGE_KEEP:-false}" != "true" ]; then
	rm -rf "$work"
fi
log "built $image, tagged ${tags[*]}"
