// Written as Apple's samples write a model for SwiftUI: `import Combine`
// and nothing of ours.
import Combine
import Testing

final class Thermostat: ObservableObject {
    @Published var target = 20
    @Published var mode = "heat"
}

final class ThermostatViewModel {
    private var cancellables = Set<AnyCancellable>()
    private(set) var shown: [String] = []

    init(thermostat: Thermostat) {
        thermostat.$target
            .map { "target \($0)" }
            .sink { [weak self] in self?.shown.append($0) }
            .store(in: &cancellables)
        thermostat.$mode
            .dropFirst()
            .removeDuplicates()
            .sink { [weak self] in self?.shown.append("mode \($0)") }
            .store(in: &cancellables)
    }

    func stop() {
        cancellables.removeAll()
    }
}

@Suite struct PublishedModelTests {
    @Test func publishedValuesArriveUntilCancelled() {
        let thermostat = Thermostat()
        let model = ThermostatViewModel(thermostat: thermostat)
        var changes = 0
        let willChange = thermostat.objectWillChange.sink { changes += 1 }
        thermostat.target = 22
        thermostat.mode = "cool"
        thermostat.mode = "cool"
        #expect(model.shown == ["target 20", "target 22", "mode cool"])
        #expect(changes == 3)
        model.stop()
        willChange.cancel()
        thermostat.target = 18
        #expect(model.shown.count == 3)
        #expect(changes == 3)
    }

    @Test func subjectsAndPublishers() {
        let events = PassthroughSubject<Int, Never>()
        let level = CurrentValueSubject<String, Never>("low")
        var received: [Int] = []
        var levels: [String] = []
        var finished = false
        let subscriptions: [AnyCancellable] = [
            events.filter { $0.isMultiple(of: 2) }.scan(0, +).sink(
                receiveCompletion: { finished = $0 == .finished }, receiveValue: { received.append($0) }),
            level.sink { levels.append($0) },
        ]
        (1...6).forEach(events.send)
        events.send(completion: .finished)
        level.value = "high"
        #expect(received == [2, 6, 12])
        #expect(finished)
        #expect(levels == ["low", "high"])
        var merged: [Int] = []
        _ = Just(1).append([2, 3].publisher).collect().sink { merged = $0 }
        #expect(merged == [1, 2, 3])
        withExtendedLifetime(subscriptions) {}
    }
}
