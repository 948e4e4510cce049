package dev.unread;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The layout's promise, on the main classes of every module: dependencies run one way, from the
 * developer kit down to the contract, and no two packages import each other. Each module's rule
 * says what it may depend on, not what it may not, and every package must belong to a module: a
 * package added later is covered, or this test fails until it is placed.
 */
class ArchitectureTest {

    private static final String PROJECT = "dev.unread..";

    private static final String[] CONTRACT = {"dev.unread.contract.."};

    /** Loaded by Flink from a JobManager's lib/, beside Flink alone. */
    private static final String[] FLINK_GUARD = {"dev.unread.flinkguard.."};

    /** {@code dev.unread} alone, without its subpackages, is the job's: {@code UnreadJob}. */
    private static final String[] JOB = {
        "dev.unread",
        "dev.unread.config..",
        "dev.unread.events..",
        "dev.unread.counter..",
        "dev.unread.groups..",
        "dev.unread.channels..",
        "dev.unread.seqs..",
        "dev.unread.state..",
        "dev.unread.sources..",
        "dev.unread.sinks.."
    };

    private static final String[] SAVEPOINT_TOOLS = {"dev.unread.ops.."};
    private static final String[] LOCAL_KAFKA = {"dev.unread.kafka..", "dev.unread.local.."};
    private static final String[] API = {"dev.unread.api.."};
    private static final String[] DEVKIT = {
        "dev.unread.cli..",
        "dev.unread.bench..",
        "dev.unread.generator..",
        "dev.unread.minicluster..",
        "dev.unread.cluster..",
        "dev.unread.peer.."
    };

    /** Main classes only: test classes and the job's shared test fixtures are left out. */
    private static final JavaClasses MAIN =
            new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    .withImportOption(ArchitectureTest::isMainCode)
                    .importPackages("dev.unread");

    private static boolean isMainCode(Location location) {
        return !location.contains("-tests.jar")
                && !location.contains("/test-classes/")
                && !location.contains("/dev/unread/testing/");
    }

    /**
     * One slice per package right below {@code dev.unread}, and one for {@code dev.unread} itself,
     * so that {@code UnreadJob} is inside the check too.
     */
    private static final SliceAssignment PACKAGES =
            new SliceAssignment() {
                @Override
                public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                    String name = javaClass.getPackageName();
                    if (name.equals("dev.unread")) {
                        return SliceIdentifier.of("dev.unread");
                    }
                    if (name.startsWith("dev.unread.")) {
                        return SliceIdentifier.of(name.split("\\.")[2]);
                    }
                    return SliceIdentifier.ignore();
                }

                @Override
                public String getDescription() {
                    return "dev.unread and each package right below it";
                }
            };

    @Test
    void noTwoPackagesDependOnEachOther() {
        slices().assignedFrom(PACKAGES).should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void everyPackageBelongsToAModule() {
        classes()
                .that()
                .resideInAPackage(PROJECT)
                .should()
                .resideInAnyPackage(
                        concat(
                                CONTRACT,
                                FLINK_GUARD,
                                JOB,
                                SAVEPOINT_TOOLS,
                                LOCAL_KAFKA,
                                API,
                                DEVKIT))
                .check(MAIN);
    }

    @Test
    void theContractDependsOnNothingOfTheProjectAndOnlyOnTheClientsItNames() {
        classes()
                .that()
                .resideInAnyPackage(CONTRACT)
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        concat(
                                CONTRACT,
                                new String[] {
                                    "java..",
                                    "javax..",
                                    "com.fasterxml..",
                                    "redis.clients..",
                                    "org.slf4j.."
                                }))
                .check(MAIN);
    }

    @Test
    void theFlinkGuardDependsOnNothingOfTheProject() {
        mayDependOnlyOn(FLINK_GUARD);
    }

    @Test
    void theJobDependsOnTheContractAloneOfTheProject() {
        mayDependOnlyOn(JOB, CONTRACT);
    }

    @Test
    void theApiDependsOnTheContractAloneOfTheProject() {
        mayDependOnlyOn(API, CONTRACT);
    }

    @Test
    void theSavepointToolsDependOnTheJobAndTheContractAlone() {
        mayDependOnlyOn(SAVEPOINT_TOOLS, concat(JOB, CONTRACT));
    }

    @Test
    void theLocalBrokerAndRedisDependOnTheContractAlone() {
        mayDependOnlyOn(LOCAL_KAFKA, CONTRACT);
    }

    /**
     * The job jar is loaded in its own class loader on a long-lived TaskManager, once per
     * submission. A record's generated {@code equals}, bound through {@code
     * java.lang.runtime.ObjectMethods}, keeps that class loader reachable after the job stops (JDK
     * 17 and 25), and with it every class of the job, at each stop or restart; a class with a
     * written {@code equals} does not. FlinkClusterLeakITCase is the end-to-end check.
     */
    @Test
    void theJobJarHoldsNoRecords() {
        classes()
                .that()
                .resideInAnyPackage(concat(JOB, CONTRACT))
                .should()
                .notBeRecords()
                .check(MAIN);
    }

    /**
     * Classes of {@code module} depend only on their own module, {@code below} and libraries; so
     * nothing but the developer kit, which has no such rule, may depend on the developer kit.
     */
    private static void mayDependOnlyOn(String[] module, String... below) {
        classes()
                .that()
                .resideInAnyPackage(module)
                .should()
                .onlyDependOnClassesThat(
                        resideInAnyPackage(concat(module, below))
                                .or(not(resideInAPackage(PROJECT)))
                                .as(
                                        "are in "
                                                + String.join(", ", concat(module, below))
                                                + " or a library"))
                .check(MAIN);
    }

    private static String[] concat(String[]... parts) {
        List<String> all = new ArrayList<>();
        for (String[] part : parts) {
            all.addAll(List.of(part));
        }
        return all.toArray(String[]::new);
    }
}
